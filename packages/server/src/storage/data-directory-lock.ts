import { readFileSync } from 'node:fs';
import { open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { FollowUpServerError } from '../errors.js';

/** The name of the lock file inside a PGlite data directory. */
export const LOCK_FILE_NAME = 'followup-server.lock';

/** Options of {@link lockDataDirectory}. */
export interface LockDataDirectoryOptions {
  /** The pid written into the lock file; defaults to `process.pid`. */
  pid?: number;
  /** Whether a process still runs; defaults to a `process.kill(pid, 0)` probe. */
  isProcessAlive?: (pid: number) => boolean;
  /**
   * What tells a process apart from a later one given the same pid: on Linux the boot id and
   * the process's start time (from `/proc`), `undefined` where it cannot be known. Recorded in
   * the lock file, it makes a lock whose pid was reused (PID 1 in a container) stale.
   */
  processIdentity?: (pid: number) => string | undefined;
}

/** @internal The boot id and start time of a process, from Linux's `/proc`. */
export function linuxProcessIdentity(pid: number): string | undefined {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name, in parentheses, may hold spaces: fields are counted after its end.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const startTime = fields[19];
    return boot && startTime ? `${boot}:${startTime}` : undefined;
  } catch {
    return undefined;
  }
}

// Lock files this process holds: a second open from the same process is always refused.
const heldHere = new Set<string>();

/** A held lock on a data directory. */
export interface DataDirectoryLock {
  /** The lock file's path. */
  readonly path: string;
  /** Removes the lock file, if it is still ours. */
  release(): Promise<void>;
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface LockHolder {
  pid: number;
  identity: string | undefined;
}

// The file: the pid on the first line, then `identity <boot id>:<start time>` when known.
async function readHolder(path: string): Promise<LockHolder | undefined> {
  try {
    const [first = '', ...rest] = (await readFile(path, 'utf8')).split('\n');
    const pid = Number(first.trim());
    if (!(Number.isSafeInteger(pid) && pid > 0)) return undefined;
    const identity = rest
      .find((line) => line.startsWith('identity '))
      ?.slice(9)
      .trim();
    return { pid, identity: identity || undefined };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function readPid(path: string): Promise<number | undefined> {
  return (await readHolder(path))?.pid;
}

/**
 * Takes the exclusive lock of a PGlite data directory: a file holding our pid, created with
 * `O_EXCL`. PGlite has no lock of its own and two processes writing one directory corrupt it,
 * so a second opener fails with `data_directory_locked`. A lock file left by a process that no
 * longer runs (a crash, `kill -9`) is taken over, even when a new process was given its pid
 * (PID 1 in a container): the file also records the process's boot id and start time.
 *
 * @example
 * ```ts
 * const lock = await lockDataDirectory('/var/lib/followup');
 * try {
 *   // open PGlite on the directory
 * } finally {
 *   await lock.release();
 * }
 * ```
 */
export async function lockDataDirectory(
  dataDir: string,
  options: LockDataDirectoryOptions = {},
): Promise<DataDirectoryLock> {
  const pid = options.pid ?? process.pid;
  const isAlive = options.isProcessAlive ?? processIsAlive;
  const identityOf = options.processIdentity ?? linuxProcessIdentity;
  const path = join(dataDir, LOCK_FILE_NAME);
  // A holder runs if its pid does and, where known, that pid is still the same process: after a
  // SIGKILL and a restart in a container the new process has the old one's pid (PID 1).
  const holderRuns = (holder: LockHolder): boolean => {
    if (heldHere.has(path)) return true;
    if (holder.pid === process.pid) return false;
    if (!isAlive(holder.pid)) return false;
    const now = holder.identity === undefined ? undefined : identityOf(holder.pid);
    return now === undefined || now === holder.identity;
  };
  // Two attempts: the second after removing a stale lock file.
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, 'wx', 0o600);
      try {
        const identity = identityOf(pid);
        await handle.writeFile(`${pid}\n${identity ? `identity ${identity}\n` : ''}`);
      } finally {
        await handle.close();
      }
      heldHere.add(path);
      return {
        path,
        release: async () => {
          heldHere.delete(path);
          if ((await readPid(path)) === pid) await unlink(path).catch(() => {});
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readHolder(path);
    if (holder !== undefined && holderRuns(holder)) {
      throw new FollowUpServerError({
        code: 'data_directory_locked',
        message:
          `The data directory ${dataDir} is in use by process ${holder.pid} ` +
          `(lock file ${path}). An embedded PGlite database must never be opened by two ` +
          'processes at once: wait for that process to stop (operator commands reach a running ' +
          '`followup-server start` through its operator channel). To run several server ' +
          'instances, use PostgreSQL (DATABASE_URL).',
      });
    }
    // Stale (its process is gone) or unreadable: remove it and try once more.
    await unlink(path).catch((unlinkError: NodeJS.ErrnoException) => {
      if (unlinkError.code !== 'ENOENT') throw unlinkError;
    });
  }
  throw new FollowUpServerError({
    code: 'data_directory_locked',
    message: `Another process took the lock of the data directory ${dataDir} at the same time.`,
  });
}

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
}

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

async function readPid(path: string): Promise<number | undefined> {
  try {
    const text = (await readFile(path, 'utf8')).trim();
    const pid = Number(text);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Takes the exclusive lock of a PGlite data directory: a file holding our pid, created with
 * `O_EXCL`. PGlite has no lock of its own and two processes writing one directory corrupt it,
 * so a second opener fails with `data_directory_locked`. A lock file left by a process that no
 * longer runs (a crash, `kill -9`) is taken over.
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
  const path = join(dataDir, LOCK_FILE_NAME);
  // Two attempts: the second after removing a stale lock file.
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, 'wx', 0o600);
      try {
        await handle.writeFile(`${pid}\n`);
      } finally {
        await handle.close();
      }
      return {
        path,
        release: async () => {
          if ((await readPid(path)) === pid) await unlink(path).catch(() => {});
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readPid(path);
    if (holder !== undefined && isAlive(holder)) {
      throw new FollowUpServerError({
        code: 'data_directory_locked',
        message:
          `The data directory ${dataDir} is in use by process ${holder} ` +
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

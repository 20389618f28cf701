import { open, readdir, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * @internal The file whose presence says that every file of the data directory was on stable
 * storage when a durable open finished, and that every open since was durable too.
 */
export const SYNCED_MARKER_FILE = 'followup-server.synced';

/** `fsync` calls in flight at once: enough to keep the disk's queue full, few descriptors. */
const SYNCS_AT_ONCE = 16;

// Windows can neither open a directory nor flush a file opened for reading only.
const onWindows = process.platform === 'win32';

/** `fsync` of one file or directory (its entries, for a directory). */
async function syncPath(path: string): Promise<void> {
  const handle = await open(path, onWindows ? 'r+' : 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Every regular file under `dir`, then the directories, deepest first, `dir` last. */
async function pathsToSync(dir: string): Promise<string[]> {
  const files: string[] = [];
  const directories: string[] = [];
  async function walk(path: string): Promise<void> {
    for (const entry of await readdir(path, { withFileTypes: true })) {
      const child = join(path, entry.name);
      // Symbolic links, sockets (the operator channel's) and pipes hold no data of the database.
      if (entry.isDirectory()) await walk(child);
      else if (entry.isFile()) files.push(child);
    }
    directories.push(path);
  }
  await walk(dir);
  return onWindows ? files : [...files, ...directories];
}

/** Runs `syncPath` over `paths`, {@link SYNCS_AT_ONCE} at a time, in their order. */
async function syncAll(paths: readonly string[]): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < paths.length) {
      const path = paths[next++] as string;
      try {
        await syncPath(path);
      } catch (error) {
        // Removed meanwhile (PostgreSQL recycles WAL segments and temporary files): nothing left
        // to keep.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: SYNCS_AT_ONCE }, worker));
}

/**
 * @internal Puts every file and directory of a PGlite data directory on stable storage, once: a
 * cluster PGlite has just created (its files written through the page cache, never synced), or
 * a directory last used by a release, or with an option, that did not sync (`--unsafe-no-fsync`).
 * Afterwards a marker file ({@link SYNCED_MARKER_FILE}) records it, so that the next durable open
 * only checks the marker: from then on PostgreSQL itself syncs what it writes (the WAL before
 * each acknowledgement, data files at each checkpoint, and the whole directory when it recovers
 * from a crash). Call it once PostgreSQL runs, before the first query.
 */
export async function syncDataDirectoryOnce(dataDir: string): Promise<void> {
  const marker = join(dataDir, SYNCED_MARKER_FILE);
  try {
    await stat(marker);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await syncAll(await pathsToSync(dataDir));
  // The directory's own entry in its parent, when the server has just created it.
  if (!onWindows) await syncPath(dirname(dataDir));
  await writeFile(
    marker,
    'Every file here was synced to disk when a durable followup-server opened this directory.\n',
    { mode: 0o600 },
  );
  await syncAll(onWindows ? [marker] : [marker, dataDir]);
}

/**
 * @internal Removes the marker of {@link syncDataDirectoryOnce} before a data directory is used
 * without syncing (`--unsafe-no-fsync`), so that the next durable open syncs every file again.
 */
export async function forgetDataDirectorySync(dataDir: string): Promise<void> {
  try {
    await unlink(join(dataDir, SYNCED_MARKER_FILE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (!onWindows) await syncPath(dataDir);
}

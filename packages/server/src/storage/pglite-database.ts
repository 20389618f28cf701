import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import pg from 'pg';
import { type DataDirectoryLock, lockDataDirectory } from './data-directory-lock.js';
import { type Database, PoolDatabase } from './database.js';
import { keepDirectoryPrivate } from './private-files.js';

/** Options of {@link openPGliteDatabase}. */
export interface PGliteDatabaseOptions {
  /**
   * A directory for the database files, created if missing and locked for this process. Without
   * one the database lives in memory and is gone at `close()` (what tests use).
   */
  dataDir?: string;
}

/**
 * Opens the embedded PGlite database (PostgreSQL compiled to WebAssembly, in this process).
 *
 * It is driven through `pg` with PGlite's node-postgres adapter, so SQL, parameters and row
 * types are exactly those of {@link openPostgresDatabase}. A data directory is locked with a
 * lock file for as long as the database is open; opening it from a second process fails with
 * `data_directory_locked`. Run migrations with {@link migrate} before use.
 *
 * @example
 * ```ts
 * const database = await openPGliteDatabase({ dataDir: './followup-data' });
 * await migrate(database);
 * ```
 */
export async function openPGliteDatabase(options: PGliteDatabaseOptions = {}): Promise<Database> {
  let lock: DataDirectoryLock | undefined;
  let stopGuarding: (() => void) | undefined;
  let pglite: PGlite;
  if (options.dataDir === undefined) {
    pglite = new PGlite();
  } else {
    const dataDir = resolve(options.dataDir);
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    lock = await lockDataDirectory(dataDir);
    try {
      // 0700, its files 0600, whatever the umask and PGlite's own modes.
      stopGuarding = keepDirectoryPrivate(dataDir);
      pglite = new PGlite(dataDir);
    } catch (error) {
      stopGuarding?.();
      await lock.release();
      throw error;
    }
  }
  try {
    await pglite.waitReady;
  } catch (error) {
    stopGuarding?.();
    await lock?.release();
    throw error;
  }
  // PGlite is one single-user backend: one connection, so statements and transactions queue.
  const pool = new pg.Pool({ ...createPgConfig(pglite), max: 1 });
  return new PoolDatabase({
    driver: 'pglite',
    pool,
    onClose: async () => {
      try {
        await pglite.close();
      } finally {
        stopGuarding?.();
        await lock?.release();
      }
    },
  });
}

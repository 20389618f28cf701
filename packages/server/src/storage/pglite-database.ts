import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { type DataDirectoryLock, lockDataDirectory } from './data-directory-lock.js';
import { forgetDataDirectorySync, syncDataDirectoryOnce } from './data-directory-sync.js';
import type { Database } from './database.js';
import { MAX_QUEUED_QUERIES } from './database-busy.js';
import { PGliteDatabase } from './pglite-backend.js';
import { keepDirectoryPrivate } from './private-files.js';
import { DURABLE_START_PARAMETERS, SyncedNodeFS } from './synced-node-fs.js';

/** Options of {@link openPGliteDatabase}. */
export interface PGliteDatabaseOptions {
  /**
   * A directory for the database files, created if missing and locked for this process. Without
   * one the database lives in memory and is gone at `close()` (what tests use).
   */
  dataDir?: string;
  /**
   * The most queries and transactions that may wait for the one backend at once (beside the one
   * running); past it they
   * fail at once with `database_busy` (503 for a request). Defaults to {@link MAX_QUEUED_QUERIES}.
   */
  maxQueuedQueries?: number;
  /**
   * Acknowledge writes to a data directory without syncing them to disk: PostgreSQL runs with
   * `fsync` off, as PGlite does by default, and every query resolves as soon as the engine
   * answers. Faster, but a write already acknowledged can be lost, and the data directory
   * corrupted, when the machine loses power or its kernel crashes (a killed server process loses
   * nothing either way). Off by default: then a query resolves only once what it committed is
   * on stable storage (see the server README, "Storage"). Nothing changes in memory.
   */
  unsafeNoFsync?: boolean;
}

/**
 * Opens the embedded PGlite database (PostgreSQL compiled to WebAssembly, in this process).
 *
 * Its SQL and parameters are exactly those of {@link openPostgresDatabase}, and its rows carry
 * the same JavaScript values (see {@link Queryable}). A data directory is locked with a lock file
 * for as long as the database is open; opening it from a second process fails with
 * `data_directory_locked`. On a data directory a query or transaction resolves (or rejects)
 * only once the write-ahead log holding what it committed, and what it read, is synced to disk,
 * one `fsync` serving every query that waits at the time (see
 * {@link PGliteDatabaseOptions.unsafeNoFsync}). Run migrations with {@link migrate} before use.
 *
 * @example
 * ```ts
 * const database = await openPGliteDatabase({ dataDir: './followup-data' });
 * await migrate(database);
 * ```
 */
export function openPGliteDatabase(options: PGliteDatabaseOptions = {}): Promise<Database> {
  return openPGlite(options);
}

/** @internal Options of {@link dumpPGliteDatabase}. */
export interface DumpPGliteDatabaseOptions {
  /**
   * `none` (the default): a tar of about 40 MB, copied in 0.3 s; `gzip`: about 4.5 MB, for a
   * dump kept in memory for long, copied in 0.6 s.
   */
  compression?: 'none' | 'gzip';
}

/**
 * Copies an in-memory database made by {@link openPGliteDatabase} (its whole data directory, in
 * the state the queries before this call left it), for {@link openPGliteCopy}.
 *
 * @internal The server's test suite and `startTestServer` open a migrated copy in about a fifth
 * of the time an empty cluster takes to create (PGlite runs initdb for every new in-memory
 * database).
 */
export function dumpPGliteDatabase(
  database: Database,
  options: DumpPGliteDatabaseOptions = {},
): Promise<Blob> {
  if (!(database instanceof PGliteDatabase)) {
    throw new TypeError('dumpPGliteDatabase takes a database opened by openPGliteDatabase.');
  }
  return database.whileIdle((pglite) => pglite.dumpDataDir(options.compression ?? 'none'));
}

/**
 * @internal Runs `work` on a database made by {@link openPGliteDatabase} after a `CHECKPOINT`,
 * once every earlier query is done, and with no statement running until `work` settles: the
 * files of its data directory are then a consistent copy of the database, every commit
 * included, for as long as `work` runs. Queries wait meanwhile (see `backup/create-backup.ts`).
 */
export function whileCheckpointed<T>(database: Database, work: () => Promise<T>): Promise<T> {
  if (!(database instanceof PGliteDatabase)) {
    throw new TypeError('whileCheckpointed takes a database opened by openPGliteDatabase.');
  }
  return database.whileIdle(async (pglite) => {
    await pglite.exec('CHECKPOINT');
    return work();
  });
}

/**
 * Opens a new in-memory database that starts as a copy of `dump` (from
 * {@link dumpPGliteDatabase}); changes to it do not reach the dump or any other copy.
 *
 * `dump` may be the dump's bytes (an uncompressed tar): PGlite then reads them where they are,
 * where a `Blob` is first read into a new buffer through a stream (about 0.3 s for the 40 MB
 * tar on a 2-core machine). The bytes are only read, never changed or kept, so one buffer serves
 * any number of copies.
 *
 * A copy runs with a buffer pool of {@link COPY_SHARED_BUFFERS} instead of PostgreSQL's 128 MB:
 * a copy is a test's database, small, and PostgreSQL zeroes its whole pool when it starts, which
 * was half of a copy's opening time.
 *
 * @internal
 */
export function openPGliteCopy(
  dump: Blob | Uint8Array,
  options: Pick<PGliteDatabaseOptions, 'maxQueuedQueries'> = {},
): Promise<Database> {
  return openPGlite({ ...options, dump: dump instanceof Uint8Array ? new TarBytes(dump) : dump });
}

/**
 * @internal The buffer pool (`shared_buffers`) of a database opened by {@link openPGliteCopy}:
 * a test's data fits many times over (the plan tests' 100,000 deliveries ran as fast as with
 * 128 MB).
 */
export const COPY_SHARED_BUFFERS = '16MB';

const COPY_START_PARAMETERS: readonly string[] = [
  ...PGlite.defaultStartParams,
  '-c',
  `shared_buffers=${COPY_SHARED_BUFFERS}`,
];

/**
 * A tar already in memory, as the `Blob` PGlite's `loadDataDir` takes: PGlite reads it once with
 * `arrayBuffer()`, and this answers with the bytes themselves instead of a copy.
 */
class TarBytes extends Blob {
  readonly #bytes: Uint8Array;

  constructor(bytes: Uint8Array) {
    super([], { type: 'application/x-tar' });
    this.#bytes = bytes;
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = this.#bytes;
    if (
      bytes.buffer instanceof ArrayBuffer &&
      bytes.byteOffset === 0 &&
      bytes.byteLength === bytes.buffer.byteLength
    ) {
      return Promise.resolve(bytes.buffer);
    }
    // A view into a larger buffer (Node's pooled Buffers): PGlite reads the whole ArrayBuffer.
    return Promise.resolve(bytes.slice().buffer);
  }
}

async function openPGlite(options: PGliteDatabaseOptions & { dump?: Blob }): Promise<Database> {
  let lock: DataDirectoryLock | undefined;
  let stopGuarding: (() => void) | undefined;
  let pglite: PGlite;
  // Only a data directory has anything to sync; memory is gone at close anyway.
  const groupCommit = options.dataDir !== undefined && options.unsafeNoFsync !== true;
  if (options.dataDir === undefined) {
    pglite = options.dump
      ? new PGlite({ loadDataDir: options.dump, startParams: [...COPY_START_PARAMETERS] })
      : new PGlite();
  } else {
    const dataDir = resolve(options.dataDir);
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    lock = await lockDataDirectory(dataDir);
    try {
      // 0700, its files 0600, whatever the umask and PGlite's own modes.
      stopGuarding = keepDirectoryPrivate(dataDir);
      if (groupCommit) {
        // fsync on, through a file system whose fsync reaches the disk (see synced-node-fs.ts).
        pglite = new PGlite({
          fs: new SyncedNodeFS(dataDir),
          startParams: [...DURABLE_START_PARAMETERS],
        });
      } else {
        // The next durable open syncs every file again: this one leaves writes unsynced.
        await forgetDataDirectorySync(dataDir);
        pglite = new PGlite(dataDir);
      }
    } catch (error) {
      stopGuarding?.();
      await lock.release();
      throw error;
    }
  }
  let ready = false;
  try {
    await pglite.waitReady;
    ready = true;
    // A cluster PGlite has just created, or one an unsynced run left, goes to disk before the
    // first query, so that no acknowledged write depends on a file still in the page cache.
    if (groupCommit && options.dataDir !== undefined) {
      await syncDataDirectoryOnce(resolve(options.dataDir));
    }
    // Timestamps come out as `2026-01-02 03:04:05.678912+00`, the form isoTimestamp and the list
    // cursors read without a Date.
    await pglite.exec("SET TIME ZONE 'UTC'; SET DateStyle = 'ISO'");
  } catch (error) {
    if (ready) await pglite.close().catch(() => {});
    stopGuarding?.();
    await lock?.release();
    throw error;
  }
  return new PGliteDatabase({
    pglite,
    onClose: async () => {
      try {
        await pglite.close();
      } finally {
        stopGuarding?.();
        await lock?.release();
      }
    },
    maxQueued: options.maxQueuedQueries ?? MAX_QUEUED_QUERIES,
    groupCommit,
  });
}

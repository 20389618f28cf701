import fs, { existsSync, readlinkSync } from 'node:fs';
import { type FileHandle, mkdtemp, open, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { testDriver } from '../../test/support/database.js';
import { LOCK_FILE_NAME } from './data-directory-lock.js';
import { SYNCED_MARKER_FILE } from './data-directory-sync.js';
import { migrate } from './migrate.js';
import { openPGliteDatabase } from './pglite-database.js';

// Which file a descriptor is open on: Linux shows it under /proc.
const descriptorsShown = existsSync('/proc/self/fd');
const pathOf = (fd: number): string => readlinkSync(`/proc/self/fd/${fd}`);

const insertAccount = `INSERT INTO service_accounts (id, name, role, created_at)
  VALUES ($1, 'durable', 'AGENT', now())`;

/**
 * Records every `fs.fsyncSync` and `fs.fsync` (PGlite's, through SyncedNodeFS: in the thread, or
 * in Node's thread pool for a WAL flush) by the path it synced, once the sync is done; `pooled`
 * holds the paths synced in the pool.
 */
function recordFsyncs(): string[] & { pooled: string[] } {
  const synced = Object.defineProperty([] as string[], 'pooled', {
    value: [] as string[],
  }) as string[] & { pooled: string[] };
  const { fsync, fsyncSync } = fs;
  vi.spyOn(fs, 'fsyncSync').mockImplementation((fd: number) => {
    fsyncSync(fd);
    synced.push(pathOf(fd));
  });
  vi.spyOn(fs, 'fsync').mockImplementation(((fd: number, done: (error: Error | null) => void) => {
    const path = pathOf(fd);
    fsync(fd, (error) => {
      if (!error) synced.push(path);
      if (!error) synced.pooled.push(path);
      done(error);
    });
  }) as typeof fs.fsync);
  return synced;
}

/**
 * Holds every `fs.fsync` (the WAL flush's, in Node's thread pool) until `release` is called,
 * which then makes them, or fails them with `failure`.
 */
function holdPooledFsyncs(): {
  started: Promise<void>;
  release(failure?: NodeJS.ErrnoException): void;
} {
  let release!: (failure?: NodeJS.ErrnoException) => void;
  const released = new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    release = resolve;
  });
  let started!: () => void;
  const startedPromise = new Promise<void>((resolve) => {
    started = resolve;
  });
  const { fsync } = fs;
  vi.spyOn(fs, 'fsync').mockImplementation(((fd: number, done: (error: Error | null) => void) => {
    started();
    void released.then((failure) => (failure ? done(failure) : fsync(fd, done)));
  }) as typeof fs.fsync);
  return { started: startedPromise, release };
}

/** Records every `FileHandle.sync()` (the one-time sync of a whole data directory) by path. */
async function recordHandleSyncs(anyFile: string): Promise<string[]> {
  const synced: string[] = [];
  const handle = await open(anyFile, 'r');
  const prototype = Object.getPrototypeOf(handle) as FileHandle;
  await handle.close();
  const sync = prototype.sync;
  vi.spyOn(prototype, 'sync').mockImplementation(async function (this: FileHandle) {
    synced.push(pathOf(this.fd));
    return sync.call(this);
  });
  return synced;
}

// Driver-specific, and two PGlite start-ups: run once, in the PGlite pass.
describe.runIf(testDriver === 'pglite')('openPGliteDatabase with a data directory', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'followup-pglite-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('locks the directory while open, and keeps the data across a reopen', async () => {
    const database = await openPGliteDatabase({ dataDir });
    try {
      expect(database.driver).toBe('pglite');
      expect((await readFile(join(dataDir, LOCK_FILE_NAME), 'utf8')).split('\n')[0]).toBe(
        String(process.pid),
      );
      await expect(openPGliteDatabase({ dataDir })).rejects.toMatchObject({
        code: 'data_directory_locked',
      });
      await migrate(database);
      await database.query(
        "INSERT INTO service_accounts (id, name, role, created_at) VALUES ('sa_1', 'kept', 'ADMIN', now())",
      );
    } finally {
      await database.close();
    }
    await expect(readFile(join(dataDir, LOCK_FILE_NAME))).rejects.toMatchObject({
      code: 'ENOENT',
    });

    const reopened = await openPGliteDatabase({ dataDir });
    try {
      expect((await migrate(reopened)).applied).toEqual([]);
      const { rows } = await reopened.query('SELECT name FROM service_accounts');
      expect(rows).toEqual([{ name: 'kept' }]);
    } finally {
      await reopened.close();
    }
  });

  it.runIf(descriptorsShown)(
    'acknowledges a write only after an fsync of the write-ahead log, one fsync for a burst',
    async () => {
      const database = await openPGliteDatabase({ dataDir });
      try {
        const events: string[] = [];
        const wal = `${sep}pg_wal${sep}`;
        const fsyncs = recordFsyncs();
        const acknowledge = () => {
          events.push(...fsyncs.splice(0).map((path) => (path.includes(wal) ? 'wal fsync' : path)));
          events.push('acknowledged');
        };
        await database.query(insertAccount, ['sa_single']).then(acknowledge);
        expect(events).toEqual(['wal fsync', 'acknowledged']);
        // In Node's thread pool: the server's thread is free meanwhile.
        expect(fsyncs.pooled).toEqual([expect.stringContaining(wal)]);

        // Fifty clients at once: they wait for one flush together (group commit).
        events.length = 0;
        await Promise.all(
          Array.from({ length: 50 }, (_, index) =>
            database.query(insertAccount, [`sa_burst_${index}`]).then(acknowledge),
          ),
        );
        expect(events).toEqual(['wal fsync', ...Array(50).fill('acknowledged')]);

        // A read that follows only flushed writes syncs nothing.
        events.length = 0;
        await database.query('SELECT count(*) FROM service_accounts').then(acknowledge);
        expect(events).toEqual(['acknowledged']);
      } finally {
        await database.close();
      }
    },
  );

  it('keeps the engine idle while the WAL flush syncs in the thread pool, the thread free', async () => {
    const database = await openPGliteDatabase({ dataDir });
    try {
      const held = holdPooledFsyncs();
      const order: string[] = [];
      const write = database.query(insertAccount, ['sa_held']).then(() => order.push('write'));
      await held.started;
      // The thread runs on (this test does) while the disk works; the engine takes no other
      // statement until the sync is done, so a read sent now is answered after the write.
      const read = database
        .query<{ n: number }>('SELECT count(*)::int AS n FROM service_accounts')
        .then(({ rows }) => order.push(`read ${rows[0]?.n}`));
      for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
      expect(order).toEqual([]);
      held.release();
      await Promise.all([write, read]);
      expect(order[0]).toBe('write');
      expect(order[1]).toMatch(/^read \d+$/);
    } finally {
      await database.close();
    }
  });

  it('fails every query after a failed sync of the WAL, as PostgreSQL does (a PANIC)', async () => {
    const database = await openPGliteDatabase({ dataDir });
    let closed = false;
    try {
      await database.query(insertAccount, ['sa_before']);
      const held = holdPooledFsyncs();
      const write = database.query(insertAccount, ['sa_lost']);
      await held.started;
      held.release(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }));
      await expect(write).rejects.toMatchObject({ code: 'EIO' });
      // Never a retry on pages the kernel may have dropped: nothing runs on the engine again.
      await expect(database.query('SELECT 1')).rejects.toMatchObject({ code: 'EIO' });
      await expect(database.query(insertAccount, ['sa_after'])).rejects.toMatchObject({
        code: 'EIO',
      });
      vi.restoreAllMocks();
      await database.close().catch(() => {});
      closed = true;
    } finally {
      if (!closed) await database.close().catch(() => {});
    }
    // The directory is free again, and what was acknowledged before is there.
    const reopened = await openPGliteDatabase({ dataDir });
    try {
      const { rows } = await reopened.query<{ id: string }>(
        "SELECT id FROM service_accounts WHERE id IN ('sa_before', 'sa_after') ORDER BY id",
      );
      expect(rows).toEqual([{ id: 'sa_before' }]);
    } finally {
      await reopened.close();
    }
  });

  it.runIf(descriptorsShown)(
    'syncs nothing with unsafeNoFsync, and the next durable open syncs every file once',
    async () => {
      const fsyncs = recordFsyncs();
      const unsafe = await openPGliteDatabase({ dataDir, unsafeNoFsync: true });
      try {
        await unsafe.query(insertAccount, ['sa_unsafe']);
        await unsafe.query('CHECKPOINT');
      } finally {
        await unsafe.close();
      }
      expect(fsyncs).toEqual([]);
      vi.restoreAllMocks();

      // The unsynced run left its writes in the page cache: every file goes to disk again.
      const handleSyncs = await recordHandleSyncs(join(dataDir, 'PG_VERSION'));
      const durable = await openPGliteDatabase({ dataDir });
      try {
        const files = (await readdir(dataDir, { recursive: true, withFileTypes: true }))
          .filter((entry) => entry.isFile())
          .map((entry) => join(entry.parentPath, entry.name));
        expect(files).toContain(join(dataDir, SYNCED_MARKER_FILE));
        expect(files.filter((file) => !handleSyncs.includes(file))).toEqual([]);
        expect(handleSyncs).toContain(dataDir);
        const { rows } = await durable.query(
          "SELECT id FROM service_accounts WHERE id = 'sa_unsafe'",
        );
        expect(rows).toEqual([{ id: 'sa_unsafe' }]);
      } finally {
        await durable.close();
      }

      // Once: the next durable open finds the marker and syncs no file itself.
      handleSyncs.length = 0;
      const again = await openPGliteDatabase({ dataDir });
      await again.close();
      expect(handleSyncs).toEqual([]);
    },
  );
});

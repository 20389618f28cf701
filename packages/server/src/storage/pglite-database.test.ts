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

/** Records every `fs.fsyncSync` (PGlite's, through SyncedNodeFS) by the path it synced. */
function recordFsyncs(): string[] {
  const synced: string[] = [];
  const fsyncSync = fs.fsyncSync;
  vi.spyOn(fs, 'fsyncSync').mockImplementation((fd: number) => {
    fsyncSync(fd);
    synced.push(pathOf(fd));
  });
  return synced;
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

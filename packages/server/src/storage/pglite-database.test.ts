import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDriver } from '../../test/support/database.js';
import { LOCK_FILE_NAME } from './data-directory-lock.js';
import { migrate } from './migrate.js';
import { openPGliteDatabase } from './pglite-database.js';

// Driver-specific, and two PGlite start-ups: run once, in the PGlite pass.
describe.runIf(testDriver === 'pglite')('openPGliteDatabase with a data directory', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'followup-pglite-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
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
});

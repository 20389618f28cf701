import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testDriver } from '../../test/support/database.js';
import { writeMigratedDataDirectory } from '../../test/support/pglite-template.js';
import { migrate } from './migrate.js';
import { openPGliteDatabase } from './pglite-database.js';

async function modes(dir: string): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  found.set(dir, (await stat(dir)).mode & 0o777);
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    found.set(path, (await stat(path)).mode & 0o777);
  }
  return found;
}

describe.skipIf(testDriver !== 'pglite')('data directory file modes', () => {
  let parent: string;
  beforeEach(async () => {
    parent = await mkdtemp(join(tmpdir(), 'followup-modes-'));
  });
  afterEach(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  it('keeps the directory 0700 and every file 0600, write-ahead log included, after writes', async () => {
    const dataDir = join(parent, 'data');
    const database = await openPGliteDatabase({ dataDir });
    try {
      await migrate(database);
      await database.query(
        `INSERT INTO messages (id, sender, subject, text, received_at)
         SELECT 'msg_' || n, 'a@example.com', 's', repeat('x', 1000), now()
           FROM generate_series(1, 1000) AS n`,
      );
      await database.query('CHECKPOINT');
    } finally {
      await database.close();
    }
    const found = await modes(dataDir);
    expect(found.size).toBeGreaterThan(500);
    expect([...found.keys()].some((path) => path.includes('pg_wal'))).toBe(true);
    const open = [...found].filter(([, mode]) => (mode & 0o077) !== 0);
    expect(open.map(([path, mode]) => `${path} ${mode.toString(8)}`)).toEqual([]);
    expect(found.get(dataDir)).toBe(0o700);
  }, 120_000);

  it('tightens the files an earlier release left open when it opens the directory', async () => {
    // A directory an earlier release left: its files as unpacked, umask and all.
    const dataDir = join(parent, 'old');
    await writeMigratedDataDirectory(dataDir);
    await writeFile(join(dataDir, 'postgresql.auto.conf.old'), 'x', { mode: 0o644 });
    await chmod(join(dataDir, 'postgresql.auto.conf.old'), 0o666);
    await chmod(dataDir, 0o755);
    const reopened = await openPGliteDatabase({ dataDir });
    await reopened.close();
    const open = [...(await modes(dataDir))].filter(([, mode]) => (mode & 0o077) !== 0);
    expect(open).toEqual([]);
  }, 120_000);

  it('refuses a directory other users can write', async () => {
    const dataDir = join(parent, 'shared');
    await mkdir(dataDir);
    await chmod(dataDir, 0o777);
    await expect(openPGliteDatabase({ dataDir })).rejects.toMatchObject({
      code: 'data_directory_insecure',
    });
    // Nothing was written into it, and it is not left locked.
    expect(await readdir(dataDir)).toEqual([]);
  });
});

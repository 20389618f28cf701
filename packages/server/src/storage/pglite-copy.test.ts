import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDriver } from '../../test/support/database.js';
import { openMigratedPGlite } from '../../test/support/pglite-template.js';
import type { Database } from './database.js';
import { COPY_SHARED_BUFFERS, dumpPGliteDatabase, openPGliteCopy } from './pglite-database.js';

const insertAccount = `INSERT INTO service_accounts (id, name, role, created_at)
  VALUES ($1, $2, 'AGENT', now())`;

const digest = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

async function accountNames(database: Database): Promise<string[]> {
  const { rows } = await database.query<{ name: string }>(
    'SELECT name FROM service_accounts ORDER BY name',
  );
  return rows.map((row) => row.name);
}

// Copies are an embedded-database shortcut (the suite's and startTestServer's): PGlite only.
describe.runIf(testDriver === 'pglite')('openPGliteCopy', () => {
  let bytes: Uint8Array;
  let gzipped: Blob;
  beforeAll(async () => {
    const source = await openMigratedPGlite();
    try {
      await source.query(insertAccount, ['sa_source', 'in the dump']);
      bytes = new Uint8Array(await (await dumpPGliteDatabase(source)).arrayBuffer());
      gzipped = await dumpPGliteDatabase(source, { compression: 'gzip' });
    } finally {
      await source.close();
    }
  });
  const opened: Database[] = [];
  afterAll(async () => {
    await Promise.all(opened.map((database) => database.close()));
  });
  const open = async (dump: Blob | Uint8Array): Promise<Database> => {
    const database = await openPGliteCopy(dump);
    opened.push(database);
    return database;
  };

  it('opens any number of copies from one buffer of bytes, leaving the bytes as they were', async () => {
    const before = digest(bytes);
    const first = await open(bytes);
    const second = await open(bytes);
    await first.query(insertAccount, ['sa_first', 'first copy']);
    await second.query(insertAccount, ['sa_second', 'second copy']);
    expect(await accountNames(first)).toEqual(['first copy', 'in the dump']);
    expect(await accountNames(second)).toEqual(['in the dump', 'second copy']);
    expect(digest(bytes)).toBe(before);
    // A copy opened after the others changed theirs starts from the dump alone.
    expect(await accountNames(await open(bytes))).toEqual(['in the dump']);
  });

  it('reads bytes that are a view into a larger buffer, and a gzipped Blob', async () => {
    const padded = new Uint8Array(bytes.byteLength + 64);
    padded.set(bytes, 32);
    const view = padded.subarray(32, 32 + bytes.byteLength);
    expect(await accountNames(await open(view))).toEqual(['in the dump']);
    expect(await accountNames(await open(gzipped))).toEqual(['in the dump']);
  });

  it('runs a copy with the small buffer pool of a test database', async () => {
    const copy = await open(bytes);
    const { rows } = await copy.query<{ shared_buffers: string }>('SHOW shared_buffers');
    expect(rows).toEqual([{ shared_buffers: COPY_SHARED_BUFFERS }]);
  });
});

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate } from '../../src/storage/migrate.js';
import { dumpPGliteDatabase, openPGliteDatabase } from '../../src/storage/pglite-database.js';
import { PGLITE_TEMPLATE_ENV } from './pglite-template.js';

/**
 * Vitest global set-up: makes one migrated, empty PGlite data directory for the whole run and
 * hands its path to the test files (forked after this runs) in {@link PGLITE_TEMPLATE_ENV}.
 * Each file then opens a copy in ~0.3 s instead of creating a cluster (~1-2 s, and CPU the
 * other files need).
 */
export default async function setup(): Promise<() => Promise<void>> {
  const directory = await mkdtemp(join(tmpdir(), 'followup-pglite-template-'));
  const database = await openPGliteDatabase();
  try {
    await migrate(database);
    const dump = await dumpPGliteDatabase(database);
    const file = join(directory, 'migrated.tar');
    await writeFile(file, new Uint8Array(await dump.arrayBuffer()));
    process.env[PGLITE_TEMPLATE_ENV] = file;
  } finally {
    await database.close();
  }
  return async () => {
    delete process.env[PGLITE_TEMPLATE_ENV];
    await rm(directory, { recursive: true, force: true });
  };
}

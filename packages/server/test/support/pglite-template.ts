import { mkdir, readFile } from 'node:fs/promises';
import { extract as extractTar } from 'tar';
import type { Database } from '../../src/storage/database.js';
import { migrate } from '../../src/storage/migrate.js';
import { openPGliteCopy, openPGliteDatabase } from '../../src/storage/pglite-database.js';

/** Where the global set-up (pglite-template.global.ts) left the migrated template. */
export const PGLITE_TEMPLATE_ENV = 'FOLLOWUP_TEST_PGLITE_TEMPLATE';

// The template's bytes, read once per worker; every copy reads them in place.
let template: Promise<Uint8Array> | undefined;

/**
 * An empty, migrated in-memory PGlite: a copy of the run's template when the global set-up made
 * one (migrated by that set-up, from this same checkout), else a new cluster, migrated here (a
 * file run outside the config, e.g. by an editor).
 */
export async function openMigratedPGlite(): Promise<Database> {
  const file = process.env[PGLITE_TEMPLATE_ENV];
  if (file) {
    template ??= readFile(file);
    return openPGliteCopy(await template);
  }
  const database = await openPGliteDatabase();
  await migrate(database);
  return database;
}

/**
 * Makes `dataDir` (missing or empty) an embedded data directory holding an empty, migrated
 * database, for a test that needs one on disk but does not test its creation: the run's template
 * unpacked there takes ~0.2 s, where PGlite's initdb and the migrations in a new directory took
 * 4-5 s (each open then finds a cluster, as after any start). The template's entries are paths
 * inside the cluster's directory written from its root (`/base/1/…`); unpacked under `dataDir`.
 * Without a template (a file run outside the config), the cluster is created and migrated here.
 */
export async function writeMigratedDataDirectory(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const file = process.env[PGLITE_TEMPLATE_ENV];
  if (file) {
    await extractTar({ file, cwd: dataDir });
    return;
  }
  const database = await openPGliteDatabase({ dataDir, unsafeNoFsync: true });
  try {
    await migrate(database);
  } finally {
    await database.close();
  }
}

import { readFile } from 'node:fs/promises';
import type { Database } from '../../src/storage/database.js';
import { migrate } from '../../src/storage/migrate.js';
import { openPGliteCopy, openPGliteDatabase } from '../../src/storage/pglite-database.js';

/** Where the global set-up (pglite-template.global.ts) left the migrated template. */
export const PGLITE_TEMPLATE_ENV = 'FOLLOWUP_TEST_PGLITE_TEMPLATE';

let template: Promise<Blob> | undefined;

/**
 * An empty, migrated in-memory PGlite: a copy of the run's template when the global set-up made
 * one (migrated by that set-up, from this same checkout), else a new cluster, migrated here (a
 * file run outside the config, e.g. by an editor).
 */
export async function openMigratedPGlite(): Promise<Database> {
  const file = process.env[PGLITE_TEMPLATE_ENV];
  if (file) {
    template ??= readFile(file).then((bytes) => new Blob([bytes]));
    return openPGliteCopy(await template);
  }
  const database = await openPGliteDatabase();
  await migrate(database);
  return database;
}

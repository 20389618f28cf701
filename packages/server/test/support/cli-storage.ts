import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { openTestDatabase, testDatabaseUrl, testDriver, uniqueSchemaName } from './database.js';
import { writeMigratedDataDirectory } from './pglite-template.js';

/**
 * Storage for tests that run the CLI: a scratch data directory, and on PostgreSQL a schema of
 * its own (created before the tests of the calling suite, dropped after them). Call it inside a
 * `describe`; its cleanup runs after the suite's own later `afterAll` hooks.
 *
 * The data directory is empty, so that the first command creates the cluster (PGlite's initdb
 * and the migrations: 8-12 s of CPU), unless `migrated` is set: then it holds the run's migrated
 * template (`writeMigratedDataDirectory`, ~0.2 s), for suites that start a server or run
 * commands on the directory but do not test its creation (run-cli.test.ts tests that).
 */
export function useCliStorage(
  prefix: string,
  { migrated = false }: { migrated?: boolean } = {},
): {
  dataDir(): string;
  storageArguments(): string[];
} {
  let dataDir: string | undefined;
  let schema: string | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), prefix));
    if (migrated && testDriver === 'pglite') await writeMigratedDataDirectory(dataDir);
    if (testDriver === 'postgres') {
      schema = uniqueSchemaName();
      const database = await openTestDatabase();
      await database.query(`CREATE SCHEMA ${schema}`);
      await database.close();
    }
  });
  afterAll(async () => {
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
    if (schema) {
      const database = await openTestDatabase();
      await database.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await database.close();
    }
  });
  const directory = (): string => {
    if (dataDir === undefined) throw new Error('useCliStorage: used before its beforeAll ran');
    return dataDir;
  };
  return {
    dataDir: directory,
    /** `--data-dir DIR` on PGlite, `--database-url URL` (with the schema) on PostgreSQL. */
    storageArguments() {
      if (testDriver === 'pglite') return ['--data-dir', directory()];
      const url = new URL(testDatabaseUrl());
      url.searchParams.set('options', `-c search_path=${schema}`);
      return ['--database-url', url.toString()];
    },
  };
}

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { openTestDatabase, testDatabaseUrl, testDriver, uniqueSchemaName } from './database.js';

/**
 * Storage for tests that run the CLI: a scratch data directory, and on PostgreSQL a schema of
 * its own (created before the tests of the calling suite, dropped after them). Call it inside a
 * `describe`; its cleanup runs after the suite's own later `afterAll` hooks.
 */
export function useCliStorage(prefix: string): {
  dataDir(): string;
  storageArguments(): string[];
} {
  let dataDir: string | undefined;
  let schema: string | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), prefix));
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

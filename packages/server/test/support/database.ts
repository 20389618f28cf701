import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { Database } from '../../src/storage/database.js';
import { migrate } from '../../src/storage/migrate.js';
import { openPostgresDatabase } from '../../src/storage/postgres-database.js';
import { openMigratedPGlite } from './pglite-template.js';

/** The driver this run of the suite is on (see vitest.config.ts). */
export const testDriver = process.env.FOLLOWUP_TEST_DRIVER === 'postgres' ? 'postgres' : 'pglite';

/** The PostgreSQL test server's URL; set whenever the driver is postgres. */
export function testDatabaseUrl(): string {
  const url = process.env.FOLLOWUP_TEST_DATABASE_URL;
  if (!url) throw new Error('FOLLOWUP_TEST_DATABASE_URL is not set.');
  return url;
}

/** A schema of its own for each PostgreSQL test file, so files can run side by side. */
export function uniqueSchemaName(): string {
  return `test_${randomBytes(6).toString('hex')}`;
}

/** Opens an empty, migrated database on the driver under test. */
export async function openTestDatabase(): Promise<Database> {
  if (testDriver === 'pglite') return openMigratedPGlite();
  const schema = uniqueSchemaName();
  const database = await openPostgresDatabase({ connectionString: testDatabaseUrl(), schema });
  await migrate(database);
  return {
    driver: database.driver,
    query: (sql, params) => database.query(sql, params),
    transaction: (callback) => database.transaction(callback),
    listen: (channel, onNotify, options) =>
      database.listen
        ? database.listen(channel, onNotify, options)
        : Promise.resolve(async () => {}),
    close: async () => {
      try {
        await database.query(`DROP SCHEMA ${schema} CASCADE`);
      } finally {
        await database.close();
      }
    },
  } satisfies Database;
}

/** Empties every table but schema_migrations. */
export async function truncateAll(database: Database): Promise<void> {
  const { rows } = await database.query<{ name: string }>(
    `SELECT tablename AS name FROM pg_tables
      WHERE schemaname = current_schema() AND tablename <> 'schema_migrations'`,
  );
  if (rows.length === 0) return;
  await database.query(
    `TRUNCATE ${rows.map((row) => `"${row.name}"`).join(', ')} RESTART IDENTITY CASCADE`,
  );
}

/**
 * One database for the whole test file (a fresh PGlite takes seconds), emptied before each test.
 * Returns a getter, valid inside tests and hooks.
 */
export function useTestDatabase(): () => Database {
  let database: Database | undefined;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  beforeEach(async () => {
    if (database) await truncateAll(database);
  });
  afterAll(async () => {
    await database?.close();
  });
  return () => {
    if (!database) throw new Error('The test database is not open yet.');
    return database;
  };
}

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { Database, Queryable } from '../../src/storage/database.js';
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
    queuedQueries: () => database.queuedQueries?.() ?? 0,
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

/**
 * Empties every table but schema_migrations, and restarts the sequences their columns own, as
 * `TRUNCATE … RESTART IDENTITY` of them all would. Only the tables that hold a row are
 * truncated: a `TRUNCATE` gives each table and each of its indexes new files, about 5 ms a table
 * on PostgreSQL, so truncating all 26 before every test took 100-170 ms there, where a test
 * writes to a handful of them.
 */
export async function truncateAll(database: Database): Promise<void> {
  const { rows } = await database.query<{ name: string }>(
    `SELECT tablename AS name FROM pg_tables
      WHERE schemaname = current_schema() AND tablename <> 'schema_migrations'`,
  );
  if (rows.length === 0) return;
  const { rows: held } = await database.query<{ names: string[] }>(
    `SELECT array_remove(ARRAY[${rows
      .map((row) => `CASE WHEN EXISTS (SELECT FROM "${row.name}") THEN '${row.name}' END`)
      .join(', ')}]::text[], NULL) AS names`,
  );
  const names = held[0]?.names ?? [];
  if (names.length > 0) {
    await database.query(
      `TRUNCATE ${names.map((name) => `"${name}"`).join(', ')} RESTART IDENTITY CASCADE`,
    );
  }
  // The sequences a column owns (serial, identity, OWNED BY): those RESTART IDENTITY restarts,
  // whether or not their table held a row now (its rows may have been deleted since).
  await database.query(
    `SELECT setval(sequence.oid, settings.seqstart, false)
       FROM pg_class AS sequence
       JOIN pg_sequence AS settings ON settings.seqrelid = sequence.oid
      WHERE sequence.relkind = 'S'
        AND sequence.relnamespace = current_schema()::regnamespace
        AND EXISTS (SELECT FROM pg_depend AS owner
                     WHERE owner.classid = 'pg_class'::regclass AND owner.objid = sequence.oid
                       AND owner.refclassid = 'pg_class'::regclass AND owner.deptype IN ('a', 'i'))`,
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

/** How long {@link transactionsSettled} waits at most: a guard against a hung test, under its timeout. */
const SETTLE_GUARD_MS = 100_000;

/**
 * Waits until every transaction that had begun anywhere on the database server when it was
 * called has ended (on PGlite, one connection, at once). Walks in transaction order (the change
 * feed, `sort=updatedAt`, the audit log's cursor, the event feed) show a change only once every
 * transaction older than its own has ended: other test files', other copies of the suite's and
 * anything else using the same server included. So this waits for that, never for a fixed time.
 */
export async function transactionsSettled(database: Queryable): Promise<void> {
  const { rows } = await database.query<{ next: string }>(
    'SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS next',
  );
  const next = rows[0]?.next ?? '0';
  const deadline = Date.now() + SETTLE_GUARD_MS;
  for (;;) {
    const { rows: settled } = await database.query<{ settled: boolean }>(
      'SELECT pg_snapshot_xmin(pg_current_snapshot()) >= $1::xid8 AS settled',
      [next],
    );
    if (settled[0]?.settled) return;
    if (Date.now() > deadline) {
      throw new Error(
        `A transaction older than the last change was still open after ${SETTLE_GUARD_MS / 1000} s.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * {@link transactionsSettled} for a test that has no connection of its own (a server started
 * through the CLI): on PostgreSQL through a short-lived one to the test server; on PGlite, whose
 * one process is the server's, nothing to wait for.
 */
export async function testServerTransactionsSettled(): Promise<void> {
  if (testDriver === 'pglite') return;
  const database = await openPostgresDatabase({ connectionString: testDatabaseUrl() });
  try {
    await transactionsSettled(database);
  } finally {
    await database.close();
  }
}

/**
 * Opens an empty, migrated database whose `lower()` folds case beyond ASCII (`İ` to `i`, `Σ` to
 * `σ`), as PostgreSQL does in a database made under a UTF-8 locale (`C.utf8`, `en_US.UTF-8`),
 * which is what most installations run. PGlite's databases already do (their ctype is
 * `C.UTF-8`); the PostgreSQL test server's own database has the `C` ctype, whose `lower()` folds
 * ASCII only, so on PostgreSQL this makes a database of its own, with `LC_CTYPE 'C.utf8'`,
 * dropped on close.
 */
export async function openUnicodeCaseTestDatabase(): Promise<Database> {
  if (testDriver === 'pglite') return openMigratedPGlite();
  const name = uniqueSchemaName();
  // No statement timeout here: CREATE and DROP DATABASE each wait for a checkpoint, which on a
  // test server busy with the whole suite's writes can outlast the 30 s default (it did in CI).
  const server = await openPostgresDatabase({
    connectionString: testDatabaseUrl(),
    statementTimeoutMs: 0,
  });
  let database: Database | undefined;
  try {
    await server.query(
      `CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C.utf8'`,
    );
    const url = new URL(testDatabaseUrl());
    url.pathname = `/${name}`;
    database = await openPostgresDatabase({ connectionString: url.toString() });
    await migrate(database);
  } catch (error) {
    await database?.close();
    await server.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    await server.close();
    throw error;
  }
  const opened = database;
  return {
    driver: opened.driver,
    query: (sql, params) => opened.query(sql, params),
    transaction: (callback) => opened.transaction(callback),
    close: async () => {
      try {
        await opened.close();
        // FORCE: a connection the pool just closed may not have left the server yet.
        await server.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await server.close();
      }
    },
  } satisfies Database;
}

import { availableParallelism } from 'node:os';
import pg from 'pg';
import { FollowUpServerError } from '../errors.js';
import type { Database } from './database.js';
import { PoolDatabase } from './pool-database.js';
import { typeParsers } from './type-parsers.js';

/** Options of {@link openPostgresDatabase}. */
export interface PostgresDatabaseOptions {
  /** A PostgreSQL connection string, such as `DATABASE_URL`. */
  connectionString: string;
  /**
   * A schema to keep the server's tables in, created if missing (letters, digits and `_`).
   * Defaults to the connection's `search_path` (usually `public`).
   */
  schema?: string;
  /**
   * Most connections that run queries at once; defaults to {@link DEFAULT_MAX_CONNECTIONS}. Each
   * listener (the token cache's revocations, the delivery worker's wake-ups) holds one more of
   * its own.
   */
  maxConnections?: number;
  /**
   * The most queries and transactions that may wait for a free connection at once; past it they
   * fail at once with `database_busy` (503 for a request). Defaults to 256
   * (`MAX_QUEUED_QUERIES`).
   */
  maxQueuedQueries?: number;
  /**
   * The longest one statement may run, in milliseconds, before PostgreSQL cancels it
   * (`statement_timeout`); a request whose query is cancelled answers 503 `query_timeout`.
   * Defaults to {@link DEFAULT_STATEMENT_TIMEOUT_MS}; 0 for none. Migrations run without it.
   */
  statementTimeoutMs?: number;
}

/**
 * The default number of PostgreSQL connections that run queries, per instance: twice the CPU
 * cores this process may use (`os.availableParallelism()`), at least 4 and at most 10; 4 on a
 * machine of 2 cores, 10 from 5 cores up.
 *
 * One Node process keeps a handful of connections busy at most; more than that on a small
 * machine only adds database processes that take turns on the same cores. Measured on 2 cores
 * with PostgreSQL on the same machine, 20 clients listing contacts: 4 connections answered about
 * 20 % more requests a second than 10, with a quarter less CPU per request in the server and a
 * p99 of 9 ms instead of 15; creates were the same. A database on another machine, reached over
 * a slower network, may want more (`maxConnections`, `--database-connections`).
 */
export const DEFAULT_MAX_CONNECTIONS = Math.min(10, Math.max(4, 2 * availableParallelism()));

/** The default `statement_timeout` of PostgreSQL connections: 30 seconds. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;

const schemaPattern = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Opens a PostgreSQL database through a `pg` connection pool. Several server instances can share
 * one database: migrations take an advisory lock, and every write is a transaction.
 *
 * @example
 * ```ts
 * const database = await openPostgresDatabase({ connectionString: process.env.DATABASE_URL! });
 * await migrate(database);
 * ```
 */
export async function openPostgresDatabase(options: PostgresDatabaseOptions): Promise<Database> {
  const { schema } = options;
  if (schema !== undefined && !schemaPattern.test(schema)) {
    throw new FollowUpServerError({
      code: 'invalid_schema_name',
      message: 'A schema name is lowercase letters, digits and underscores.',
    });
  }
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  if (!(Number.isSafeInteger(maxConnections) && maxConnections >= 1)) {
    throw new FollowUpServerError({
      code: 'invalid_max_connections',
      message: 'maxConnections is a whole number of connections, at least 1.',
    });
  }
  const config: pg.PoolConfig = {
    connectionString: options.connectionString,
    max: maxConnections,
    types: typeParsers,
  };
  const timeout = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  if (!(Number.isSafeInteger(timeout) && timeout >= 0)) {
    throw new FollowUpServerError({
      code: 'invalid_statement_timeout',
      message: 'statementTimeoutMs is a whole number of milliseconds, 0 for none.',
    });
  }
  config.options = [
    `-c statement_timeout=${timeout}`,
    // Timestamps come out as `2026-01-02 03:04:05.678912+00`, the form the type parser and the
    // list cursors read without a Date, whatever the server's own defaults.
    '-c TimeZone=UTC',
    '-c DateStyle=ISO',
    // No JIT compilation of queries. The server's statements each read a few rows to a few tens of
    // thousands; PostgreSQL compiles a statement with LLVM when its estimated cost passes
    // jit_above_cost, and the estimate of a statement with a subquery per row (the overview's
    // attempts per hour) passed it at a day of attempts: 763 ms of compiling for 10 ms of work.
    '-c jit=off',
    ...(schema === undefined ? [] : [`-c search_path=${schema}`]),
  ].join(' ');
  const pool = new pg.Pool(config);
  // An idle connection that the server drops (a restart) must not crash the process.
  pool.on('error', () => {});
  try {
    if (schema !== undefined) {
      await pool
        .query(`CREATE SCHEMA IF NOT EXISTS ${schema}`)
        .catch((error: { code?: string }) => {
          // Two instances creating it at once: the loser sees a unique violation; it exists now.
          if (error.code !== '23505' && error.code !== '42P06') throw error;
        });
    } else {
      await pool.query('SELECT 1');
    }
  } catch (error) {
    await pool.end();
    throw new FollowUpServerError({
      code: 'database_unreachable',
      message: `Could not connect to PostgreSQL: ${(error as Error).message}`,
      cause: error,
    });
  }
  return new PoolDatabase({
    driver: 'postgres',
    pool,
    // A listener holds its connection for as long as it listens: one of its own, with the same
    // settings, so that `maxConnections` stays the number of connections that run queries.
    newListener: () =>
      new pg.Client({
        connectionString: options.connectionString,
        options: config.options,
        types: typeParsers,
      }),
    ...(options.maxQueuedQueries === undefined
      ? {}
      : { maxQueuedQueries: options.maxQueuedQueries }),
  });
}

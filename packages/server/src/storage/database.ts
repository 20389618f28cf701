import type pg from 'pg';

/** The rows of a query and how many rows the statement touched. */
export interface QueryResult<Row> {
  /** The rows returned, with PostgreSQL's types as `pg` maps them on both drivers. */
  rows: Row[];
  /** Rows inserted, updated, deleted or returned. */
  rowCount: number;
}

/**
 * Something SQL can be sent to: the database itself (each statement on its own) or the
 * transaction handed to {@link Database.transaction}'s callback.
 *
 * Both drivers go through `pg`, so they return the same JavaScript types: `timestamptz` as
 * `Date`, `bigint` as a decimal `string`, `jsonb` parsed, `bytea` as a `Buffer`.
 */
export interface Queryable {
  /**
   * Runs one SQL statement with `$1`, `$2`… parameters.
   *
   * @example
   * ```ts
   * const { rows } = await database.query<{ id: string }>(
   *   'SELECT id FROM contacts WHERE last_name = $1',
   *   ['Lovelace'],
   * );
   * ```
   */
  query<Row = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
  ): Promise<QueryResult<Row>>;
}

/** Which storage driver a {@link Database} runs on. */
export type DatabaseDriver = 'pglite' | 'postgres';

/**
 * The server's storage: PostgreSQL SQL behind one small interface, on embedded PGlite or on a
 * PostgreSQL server. Open one with {@link openPGliteDatabase} or {@link openPostgresDatabase}.
 */
export interface Database extends Queryable {
  /** The driver underneath. */
  readonly driver: DatabaseDriver;
  /**
   * Runs `callback` in one transaction: committed when it resolves, rolled back when it throws
   * (the error is thrown again). Use only the `transaction` argument inside the callback.
   *
   * @example
   * ```ts
   * await database.transaction(async (transaction) => {
   *   await transaction.query('UPDATE tokens SET revoked_at = now() WHERE id = $1', [tokenId]);
   *   await transaction.query('INSERT INTO audit_entries …', […]);
   * });
   * ```
   */
  transaction<T>(callback: (transaction: Queryable) => Promise<T>): Promise<T>;
  /**
   * Calls `onNotify` for each PostgreSQL notification on `channel` (`LISTEN`), received on a
   * connection of its own, until the returned function is called; after a lost connection it
   * reconnects, and calls `onNotify` once, for what it may have missed. On PGlite, which is one
   * process's alone, it does nothing (a process tells itself directly). Optional: a `Database`
   * without it simply gets no notifications.
   *
   * @param channel - A channel name: lowercase letters, digits and `_`.
   */
  listen?(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  /** Closes every connection (and, for PGlite, the database and its lock). */
  close(): Promise<void>;
}

function toResult<Row>(raw: pg.QueryResult | pg.QueryResult[]): QueryResult<Row> {
  // Several statements in one string (a migration) answer with one result each: keep the last.
  const result = (Array.isArray(raw) ? raw.at(-1) : raw) ?? { rows: [], rowCount: 0 };
  return { rows: result.rows as Row[], rowCount: result.rowCount ?? result.rows.length };
}

/** @internal A {@link Database} over a `pg` pool; both drivers use it. */
export class PoolDatabase implements Database {
  readonly driver: DatabaseDriver;
  readonly #pool: pg.Pool;
  readonly #onClose: () => Promise<void>;
  #closed = false;

  constructor(options: { driver: DatabaseDriver; pool: pg.Pool; onClose?: () => Promise<void> }) {
    this.driver = options.driver;
    this.#pool = options.pool;
    this.#onClose = options.onClose ?? (async () => {});
  }

  async query<Row = Record<string, unknown>>(
    sql: string,
    params: readonly unknown[] = [],
  ): Promise<QueryResult<Row>> {
    return toResult<Row>(await this.#pool.query(sql, params as unknown[]));
  }

  async transaction<T>(callback: (transaction: Queryable) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const transaction: Queryable = {
        query: async <Row>(sql: string, params: readonly unknown[] = []) =>
          toResult<Row>(await client.query(sql, params as unknown[])),
      };
      try {
        const value = await callback(transaction);
        await client.query('COMMIT');
        return value;
      } catch (error) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackError) {
          // The connection is in an unknown state: drop it rather than hand it out again.
          broken =
            rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        }
        throw error;
      }
    } finally {
      client.release(broken);
    }
  }

  async listen(channel: string, onNotify: () => void): Promise<() => Promise<void>> {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) {
      throw new RangeError('A channel name is lowercase letters, digits and underscores.');
    }
    // PGlite has a single connection, which a listener would keep from everyone else.
    if (this.driver !== 'postgres') return async () => {};
    let client: pg.PoolClient | undefined;
    let stopped = false;
    let retry: NodeJS.Timeout | undefined;
    const schedule = () => {
      if (stopped || this.#closed) return;
      retry = setTimeout(() => void connect(true), 1_000);
      retry.unref?.();
    };
    const drop = (lost: pg.PoolClient) => {
      if (client !== lost) return;
      client = undefined;
      lost.release(true);
      schedule();
    };
    const connect = async (again: boolean): Promise<void> => {
      let connected: pg.PoolClient;
      try {
        connected = await this.#pool.connect();
      } catch {
        return schedule();
      }
      connected.on('notification', (message) => {
        if (message.channel === channel) onNotify();
      });
      connected.on('error', () => drop(connected));
      client = connected;
      try {
        await connected.query(`LISTEN ${channel}`);
      } catch {
        return drop(connected);
      }
      if (again) onNotify();
    };
    await connect(false);
    return async () => {
      stopped = true;
      clearTimeout(retry);
      const listening = client;
      client = undefined;
      if (!listening) return;
      try {
        await listening.query(`UNLISTEN ${channel}`);
        listening.release();
      } catch {
        listening.release(true);
      }
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.#pool.end();
    } finally {
      await this.#onClose();
    }
  }
}

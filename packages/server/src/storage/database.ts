import pg from 'pg';
import { databaseBusyError, MAX_QUEUED_QUERIES } from './database-busy.js';
import { isoTimestamp } from './iso-timestamp.js';

/** The rows of a query and how many rows the statement touched. */
export interface QueryResult<Row> {
  /** The rows returned, with the same JavaScript types on both drivers (see {@link Queryable}). */
  rows: Row[];
  /** Rows inserted, updated, deleted or returned. */
  rowCount: number;
}

/**
 * Something SQL can be sent to: the database itself (each statement on its own) or the
 * transaction handed to {@link Database.transaction}'s callback.
 *
 * Both drivers return the same JavaScript types: `timestamptz` as an ISO 8601 UTC string with
 * milliseconds (`2026-01-02T03:04:05.678Z`, exactly `Date#toISOString()` of the value; never a
 * `Date`, so that a timestamp goes from the database to a response without a round trip),
 * `bigint` as a decimal `string`, `integer` as a `number`, `jsonb` parsed, `bytea` as a `Buffer`,
 * anything else as `pg` parses it. Parameters are written as `pg` writes them (a `Date` or an ISO
 * string for a `timestamptz`).
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

/** Options of {@link Database.listen}. */
export interface ListenOptions {
  /** Told whether the listening connection is up, each time that changes. */
  onListening?: (listening: boolean) => void;
  /**
   * Lets pass the notifications whose payload is `<schema>:…` for another schema than the
   * connection's own (another deployment or test in the same database); a payload of any other
   * form is delivered.
   */
  ownSchemaOnly?: boolean;
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
   * connection of its own (outside the pool that runs queries), until the returned function is
   * called, with the notification's payload; after a lost connection it reconnects, and calls
   * `onNotify` once without one (`undefined`), for what it may have missed. On PGlite, which is one
   * process's alone, it does nothing (a process tells itself directly). Optional: a `Database`
   * without it simply gets no notifications.
   *
   * @param channel - A channel name: lowercase letters, digits and `_`.
   * @param options.onListening - Told `true` each time the listening connection is up (and
   *   `LISTEN` done), `false` each time it is lost or cannot be made: what depends on hearing
   *   every notification (a cache) stops trusting itself meanwhile.
   */
  listen?(
    channel: string,
    onNotify: (payload?: string) => void,
    options?: ListenOptions,
  ): Promise<() => Promise<void>>;
  /** Closes every connection (and, for PGlite, the database and its lock). */
  close(): Promise<void>;
}

/** SQL texts given a statement name (prepared once per connection, then only executed). */
const MAX_NAMED_STATEMENTS = 1000;

/** @internal Row objects from `pg`'s array-mode rows, one constructor per column list. */
type RowBuilder = (values: readonly unknown[]) => Record<string, unknown>;

function rowBuilder(names: readonly string[]): RowBuilder {
  return (values) => {
    const row: Record<string, unknown> = {};
    for (let index = 0; index < names.length; index++) {
      row[names[index] as string] = values[index];
    }
    return row;
  };
}

/**
 * @internal Runs statements on a `pg` pool or client: SQL with parameters as a named prepared
 * statement (planned once per connection; up to {@link MAX_NAMED_STATEMENTS} distinct texts,
 * unnamed beyond), rows fetched in array mode and made into objects by a builder kept per
 * statement. SQL without parameters goes through the simple protocol, so a string may hold
 * several statements (a migration); the last one's result is kept.
 */
class StatementRunner {
  /** By SQL text: its statement name, or `null` once it may no longer be named (see below). */
  readonly #names = new Map<string, string | null>();
  readonly #builders = new Map<string, { fields: readonly pg.FieldDef[]; build: RowBuilder }>();

  nameOf(sql: string): string | undefined {
    let name = this.#names.get(sql);
    if (name === undefined && this.#names.size < MAX_NAMED_STATEMENTS) {
      name = `f${this.#names.size + 1}`;
      this.#names.set(sql, name);
    }
    return name ?? undefined;
  }

  /**
   * @param retry - Whether a statement whose result type changed under it (a migration by
   *   another instance) may run again, unnamed: not inside a transaction, which the error ended.
   */
  async run<Row>(
    client: pg.Pool | pg.PoolClient,
    sql: string,
    params: readonly unknown[],
    retry: boolean,
  ): Promise<QueryResult<Row>> {
    if (params.length === 0) {
      const raw = (await client.query(sql)) as pg.QueryResult | pg.QueryResult[];
      // Several statements in one string (a migration) answer with one result each: keep the last.
      const result = (Array.isArray(raw) ? raw.at(-1) : raw) ?? { rows: [], rowCount: 0 };
      return { rows: result.rows as Row[], rowCount: result.rowCount ?? result.rows.length };
    }
    const name = this.nameOf(sql);
    let result: pg.QueryArrayResult;
    try {
      result = await client.query({
        text: sql,
        values: params as unknown[],
        rowMode: 'array',
        ...(name === undefined ? {} : { name }),
      });
    } catch (error) {
      // "cached plan must not change result type": from now on this text runs unnamed.
      if (name === undefined || (error as { code?: unknown }).code !== '0A000') throw error;
      this.#names.set(sql, null);
      if (!retry) throw error;
      return this.run<Row>(client, sql, params, false);
    }
    let builder = this.#builders.get(sql);
    if (builder === undefined || !sameFields(builder.fields, result.fields)) {
      builder = { fields: result.fields, build: rowBuilder(result.fields.map((f) => f.name)) };
      if (this.#builders.size < MAX_NAMED_STATEMENTS) this.#builders.set(sql, builder);
    }
    const rows = new Array<Row>(result.rows.length);
    for (let index = 0; index < rows.length; index++) {
      rows[index] = builder.build(result.rows[index] as unknown[]) as Row;
    }
    return { rows, rowCount: result.rowCount ?? rows.length };
  }
}

function sameFields(a: readonly pg.FieldDef[], b: readonly pg.FieldDef[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) {
    if (a[index]?.name !== b[index]?.name) return false;
  }
  return true;
}

/**
 * @internal The type parsers of both drivers' `pg` clients: `pg`'s own, but `timestamptz`, which
 * stays an ISO 8601 UTC string (see {@link Queryable}).
 */
export const typeParsers: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.TIMESTAMPTZ && format !== 'binary'
      ? isoTimestamp
      : pg.types.getTypeParser(oid, format ?? 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * Whether a notification's payload may concern `schema`: a `<schema>:…` payload names the schema
 * it comes from; any other (or an unknown own schema) counts as one that does.
 */
function ofSchema(payload: string | undefined, schema: string | undefined): boolean {
  const separator = payload?.lastIndexOf(':') ?? -1;
  if (payload === undefined || separator < 0 || schema === undefined) return true;
  return payload.slice(0, separator) === schema;
}

/** @internal A {@link Database} over a `pg` pool (PostgreSQL). */
export class PoolDatabase implements Database {
  readonly driver: DatabaseDriver;
  readonly #pool: pg.Pool;
  readonly #onClose: () => Promise<void>;
  readonly #statements = new StatementRunner();
  readonly #newListener: (() => pg.Client) | undefined;
  // Listening connections not yet stopped, ended by close() if their owner never stops them.
  readonly #listeners = new Set<pg.Client>();
  #closed = false;

  readonly #maxQueued: number;

  constructor(options: {
    driver: DatabaseDriver;
    pool: pg.Pool;
    onClose?: () => Promise<void>;
    /** The most queries waiting for a connection at once (see {@link MAX_QUEUED_QUERIES}). */
    maxQueuedQueries?: number;
    /**
     * A new, unconnected client for a listener: a `LISTEN` holds its connection for as long as
     * it listens, so it never takes one of the pool's. Without it, {@link PoolDatabase.listen}
     * does nothing (PGlite's single connection).
     */
    newListener?: () => pg.Client;
  }) {
    this.driver = options.driver;
    this.#pool = options.pool;
    this.#onClose = options.onClose ?? (async () => {});
    this.#maxQueued = options.maxQueuedQueries ?? MAX_QUEUED_QUERIES;
    this.#newListener = options.newListener;
  }

  // Every connection busy and too many waiting already: refused now rather than queued forever.
  #refuseWhenSaturated(): void {
    if (this.#pool.waitingCount >= this.#maxQueued) throw databaseBusyError();
  }

  async query<Row = Record<string, unknown>>(
    sql: string,
    params: readonly unknown[] = [],
  ): Promise<QueryResult<Row>> {
    this.#refuseWhenSaturated();
    return this.#statements.run<Row>(this.#pool, sql, params, true);
  }

  async transaction<T>(callback: (transaction: Queryable) => Promise<T>): Promise<T> {
    this.#refuseWhenSaturated();
    const client = await this.#pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const transaction: Queryable = {
        query: <Row>(sql: string, params: readonly unknown[] = []) =>
          this.#statements.run<Row>(client, sql, params, false),
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

  async listen(
    channel: string,
    onNotify: (payload?: string) => void,
    options: ListenOptions = {},
  ): Promise<() => Promise<void>> {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) {
      throw new RangeError('A channel name is lowercase letters, digits and underscores.');
    }
    // PGlite has a single connection, which a listener would keep from everyone else.
    const newListener = this.#newListener;
    if (newListener === undefined) return async () => {};
    let client: pg.Client | undefined;
    let stopped = false;
    let retry: NodeJS.Timeout | undefined;
    const schedule = () => {
      options.onListening?.(false);
      if (stopped || this.#closed) return;
      retry = setTimeout(() => void connect(true), 1_000);
      retry.unref?.();
    };
    const drop = (lost: pg.Client) => {
      if (client !== lost) return;
      client = undefined;
      void this.#endListener(lost);
      schedule();
    };
    const connect = async (again: boolean): Promise<void> => {
      if (stopped || this.#closed) return;
      const connecting = newListener();
      this.#listeners.add(connecting);
      // Set before connect(): a refused connection emits 'error' too.
      connecting.on('error', () => drop(connecting));
      connecting.on('end', () => drop(connecting));
      let schema: string | undefined;
      connecting.on('notification', (message) => {
        if (message.channel !== channel) return;
        if (options.ownSchemaOnly && !ofSchema(message.payload, schema)) return;
        onNotify(message.payload);
      });
      client = connecting;
      try {
        await connecting.connect();
        if (options.ownSchemaOnly) {
          const { rows } = await connecting.query<{ schema: string | null }>(
            'SELECT current_schema() AS schema',
          );
          schema = rows[0]?.schema ?? undefined;
        }
        await connecting.query(`LISTEN ${channel}`);
      } catch {
        return drop(connecting);
      }
      if (client !== connecting) return;
      if (again) onNotify();
      options.onListening?.(true);
    };
    await connect(false);
    return async () => {
      stopped = true;
      clearTimeout(retry);
      const listening = client;
      client = undefined;
      if (listening) await this.#endListener(listening);
    };
  }

  // Closes a listening connection (ending one that failed or ended already is harmless).
  async #endListener(listener: pg.Client): Promise<void> {
    this.#listeners.delete(listener);
    await listener.end().catch(() => {});
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([...this.#listeners].map((listener) => this.#endListener(listener)));
    try {
      await this.#pool.end();
    } finally {
      await this.#onClose();
    }
  }
}

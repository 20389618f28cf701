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
  /**
   * Told whether the listening connection is up, each time that changes: `true` once `LISTEN`
   * is done, `false` with the error when it is lost or cannot be made (once, however many
   * attempts to make it again fail meanwhile).
   */
  onListening?: (listening: boolean, error?: unknown) => void;
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
   * called, with the notification's payload; after a lost connection it reconnects on its own
   * (after 50 ms, then waits that double up to a second between attempts, for as long as it
   * takes), issues its `LISTEN` again, and calls `onNotify` once without a payload
   * (`undefined`), for what it may have missed. On PGlite, which is one
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
  /**
   * How many queries and transactions wait for their turn at this moment (for a free pooled
   * connection on PostgreSQL, behind the running statement on PGlite): the
   * `followup_database_queued_queries` gauge. Optional: a `Database` without it reports none.
   */
  queuedQueries?(): number;
  /** Closes every connection (and, for PGlite, the database and its lock). */
  close(): Promise<void>;
}

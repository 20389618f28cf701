import type pg from 'pg';
import type {
  Database,
  DatabaseDriver,
  ListenOptions,
  Queryable,
  QueryResult,
} from './database.js';
import { databaseBusyError, MAX_QUEUED_QUERIES } from './database-busy.js';
import { StatementRunner } from './statement-runner.js';

/**
 * Whether a notification's payload may concern `schema`: a `<schema>:…` payload names the schema
 * it comes from; any other (or an unknown own schema) counts as one that does.
 */
function ofSchema(payload: string | undefined, schema: string | undefined): boolean {
  const separator = payload?.lastIndexOf(':') ?? -1;
  if (payload === undefined || separator < 0 || schema === undefined) return true;
  return payload.slice(0, separator) === schema;
}

/**
 * @internal The first wait before a lost listening connection is made again: 50 ms, so that a
 * connection dropped under a database that still runs (a terminated backend, a proxy that
 * restarted) is back at once.
 */
export const LISTEN_RETRY_INITIAL_MS = 50;

/**
 * @internal The longest wait between two attempts to make a lost listening connection again: 1
 * second. Each failed attempt doubles the wait up to it (50, 100, 200, 400, 800 ms, then every
 * second), so a database that is down for long costs each listener one refused connection a
 * second, and one that comes back is listened to again within a second: a write on another
 * instance wakes this one's delivery worker, and a revocation clears its token cache, as before.
 */
export const LISTEN_RETRY_MAX_MS = 1_000;

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

  queuedQueries(): number {
    return this.#pool.waitingCount;
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
    // Whether the listening connection was up when last told (`undefined`: never told yet), so
    // that `onListening` hears each change once, not once per failed reconnection.
    let listening: boolean | undefined;
    // The wait before the next reconnection, doubled by each failure up to the cap.
    let retryDelayMs = LISTEN_RETRY_INITIAL_MS;
    const tell = (now: boolean, error?: unknown) => {
      if (listening === now) return;
      listening = now;
      options.onListening?.(now, error);
    };
    const schedule = (error: unknown) => {
      tell(false, error);
      if (stopped || this.#closed) return;
      retry = setTimeout(() => void connect(true), retryDelayMs);
      retry.unref?.();
      retryDelayMs = Math.min(retryDelayMs * 2, LISTEN_RETRY_MAX_MS);
    };
    const drop = (lost: pg.Client, error: unknown) => {
      if (client !== lost) return;
      client = undefined;
      void this.#endListener(lost);
      schedule(error);
    };
    const connect = async (again: boolean): Promise<void> => {
      if (stopped || this.#closed) return;
      const connecting = newListener();
      this.#listeners.add(connecting);
      // Set before connect(): a refused connection emits 'error' too.
      connecting.on('error', (error) => drop(connecting, error));
      connecting.on('end', () => drop(connecting, new Error('Connection terminated')));
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
      } catch (error) {
        return drop(connecting, error);
      }
      if (client !== connecting) return;
      retryDelayMs = LISTEN_RETRY_INITIAL_MS;
      // Notifications sent while no connection listened are lost: what missed one would have
      // done (a worker's look, a cache's clearing) is done once now.
      if (again) onNotify();
      tell(true);
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

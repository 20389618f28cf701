import type { PGlite } from '@electric-sql/pglite';
import pgUtils from 'pg/lib/utils.js';
import type { Database, Queryable, QueryResult } from './database.js';
import { databaseBusyError } from './database-busy.js';
import { databaseError, ResultCollector } from './pglite-result.js';
import type { RowDecoder } from './row-decoder.js';
import { MessageWriter, readBackendMessages, type WireParameter } from './wire-protocol.js';

/**
 * Forces the WAL onto stable storage, when anything was written since the last time: a logical
 * decoding message of no content, written and flushed on its own (`flush` = true), flushes
 * every record before it, every commit made with `synchronous_commit` off included.
 */
const FLUSH_WAL_SQL = `SELECT pg_logical_emit_message(false, 'followup.flush', '', true)
  WHERE pg_current_wal_flush_lsn() < pg_current_wal_insert_lsn()`;

/** Named statements kept prepared at once; the least recently used one is closed beyond. */
const MAX_PREPARED_STATEMENTS = 500;

interface PreparedStatement {
  name: string;
  /** `undefined` until the first run described it; `null` for a statement without rows. */
  decoder: RowDecoder | null | undefined;
}

/** A parameter as `pg` sends it: `Buffer`s in binary, everything else as `pg` writes it. */
function wireParameter(value: unknown): WireParameter {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  const prepared = pgUtils.prepareValue(value);
  if (prepared === null || prepared === undefined) return null;
  return prepared instanceof Uint8Array ? prepared : String(prepared);
}

/**
 * @internal The embedded database, spoken to in PostgreSQL's own protocol through PGlite's raw
 * entry (`execProtocolRawStream`): each distinct SQL text with parameters becomes a named prepared
 * statement, planned once, then only bound and executed; rows are decoded by {@link rowDecoder}
 * into the same values `pg` gives (but `timestamptz`, an ISO string). SQL without parameters
 * goes through the simple protocol, so one string may hold several statements (a migration).
 * PGlite is one single-user backend: statements and transactions take turns.
 */
export class PGliteDatabase implements Database {
  readonly driver = 'pglite' as const;
  readonly #pglite: PGlite;
  readonly #onClose: () => Promise<void>;
  readonly #writer = new MessageWriter();
  readonly #statements = new Map<string, PreparedStatement>();
  readonly #toClose: string[] = [];
  #turn: Promise<unknown> = Promise.resolve();
  readonly #maxQueued: number;
  #queued = 0;
  #nextName = 0;
  #inTransaction = false;
  #closed = false;
  /** Whether each query and transaction waits for a WAL flush that follows it (group commit). */
  readonly #groupCommit: boolean;
  /** The WAL flush that is queued and has not started: work that ends before it joins it. */
  #nextFlush: Promise<void> | undefined;

  constructor(options: {
    pglite: PGlite;
    onClose: () => Promise<void>;
    maxQueued: number;
    groupCommit: boolean;
  }) {
    this.#pglite = options.pglite;
    this.#onClose = options.onClose;
    this.#maxQueued = options.maxQueued;
    this.#groupCommit = options.groupCommit;
  }

  /** The data directory as an uncompressed tarball, once every earlier query is done. */
  dumpDataDirectory(): Promise<Blob> {
    return this.#exclusive(
      async () => {
        if (this.#closed) throw new Error('The database is closed.');
        return this.#pglite.dumpDataDir('none');
      },
      { bounded: false },
    );
  }

  /**
   * Runs `work` once every earlier query and transaction is done; refused at once with
   * `database_busy` when too many wait already (closing and flushing always wait their turn).
   * With `durable` (queries and transactions) and group commit on, what `work` settled with is
   * handed over only after the next WAL flush: after what it committed, and what it read, is on
   * stable storage.
   */
  #exclusive<T>(
    work: () => Promise<T>,
    { bounded = true, durable = false }: { bounded?: boolean; durable?: boolean } = {},
  ): Promise<T> {
    // One of them runs; the others wait.
    if (bounded && this.#queued > this.#maxQueued) return Promise.reject(databaseBusyError());
    this.#queued++;
    const result = this.#turn.then(work).finally(() => {
      this.#queued--;
    });
    this.#turn = result.catch(() => {});
    if (!durable || !this.#groupCommit) return result;
    // A failure waits too: a statement may have failed after reading a commit not yet flushed.
    return result.then(
      (value) => this.#flushed().then(() => value),
      (error: unknown) => this.#flushed().then(() => Promise.reject(error)),
    );
  }

  /**
   * The WAL flush that follows everything run so far: the one not started yet, or a new one.
   * A new one waits for the end of this turn of the event loop (`setImmediate`) before it
   * queues: the engine runs in this thread, so a request's statements run to their end without
   * letting the next request in; the wait lets every request whose bytes already arrived run its
   * statements first. Every query and transaction that ends before the flush starts shares it:
   * one `fsync` for all of them (group commit).
   */
  #flushed(): Promise<void> {
    this.#nextFlush ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
      this.#exclusive(
        async () => {
          this.#nextFlush = undefined;
          // Closing checkpointed, which flushed the WAL.
          if (this.#closed) return;
          const collector = await this.#simple(FLUSH_WAL_SQL);
          if (collector.failure) throw databaseError(collector.failure);
        },
        { bounded: false },
      ),
    );
    return this.#nextFlush;
  }

  async #exchange(message: Uint8Array, collector: ResultCollector): Promise<void> {
    if (this.#closed) throw new Error('The database is closed.');
    // The streaming raw entry hands the backend's bytes over as they are written, without
    // PGlite's own JavaScript parse of them (which its other entries, even execProtocolRaw, do).
    const chunks: Uint8Array[] = [];
    await this.#pglite.execProtocolRawStream(message, {
      // PGlite's sync step copies an in-memory file system to its store (IndexedDB, in a
      // browser). The file systems this server opens, a data directory (NODEFS) or memory, write
      // through and have nothing to copy; the step still took a mutex and promises per statement.
      syncToFs: false,
      onRawData: (chunk) => {
        // A view of the engine's memory, reused for the next chunk: copied.
        chunks.push(chunk.slice());
      },
    });
    readBackendMessages(
      chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks),
      collector,
    );
  }

  async #run<Row>(sql: string, params: readonly unknown[]): Promise<QueryResult<Row>> {
    const collector =
      params.length === 0 ? await this.#simple(sql) : await this.#extended(sql, params, true);
    if (collector.failure) throw databaseError(collector.failure);
    return {
      rows: collector.rows as Row[],
      rowCount: collector.rowCount ?? collector.rows.length,
    };
  }

  async #simple(sql: string): Promise<ResultCollector> {
    const collector = new ResultCollector(undefined);
    await this.#exchange(this.#writer.query(sql).take(), collector);
    return collector;
  }

  async #extended(
    sql: string,
    params: readonly unknown[],
    retry: boolean,
  ): Promise<ResultCollector> {
    const parameters = params.map(wireParameter);
    const writer = this.#writer;
    for (const name of this.#toClose.splice(0)) writer.closeStatement(name);
    let statement = this.#statements.get(sql);
    const fresh = statement === undefined;
    if (statement === undefined) {
      statement = { name: `s${++this.#nextName}`, decoder: undefined };
      writer.parse(statement.name, sql).describeStatement(statement.name);
    } else {
      // Most recently used last: the first entry is the one to close when the cache is full.
      this.#statements.delete(sql);
      this.#statements.set(sql, statement);
    }
    writer.bind(statement.name, parameters).execute().sync();
    const collector = new ResultCollector(statement.decoder);
    await this.#exchange(writer.take(), collector);
    if (fresh) {
      if (collector.parsed) {
        statement.decoder = collector.decoder;
        this.#statements.set(sql, statement);
        if (this.#statements.size > MAX_PREPARED_STATEMENTS) {
          const [oldest] = this.#statements;
          if (oldest) {
            this.#statements.delete(oldest[0]);
            this.#toClose.push(oldest[1].name);
          }
        }
      }
    } else if (collector.failure?.C === '0A000') {
      // "cached plan must not change result type": a table changed under the statement.
      this.#statements.delete(sql);
      this.#toClose.push(statement.name);
      if (retry && !this.#inTransaction) return this.#extended(sql, params, false);
    }
    return collector;
  }

  query<Row = Record<string, unknown>>(
    sql: string,
    params: readonly unknown[] = [],
  ): Promise<QueryResult<Row>> {
    return this.#exclusive(() => this.#run<Row>(sql, params), { durable: true });
  }

  transaction<T>(callback: (transaction: Queryable) => Promise<T>): Promise<T> {
    return this.#exclusive(
      async () => {
        await this.#run('BEGIN', []);
        this.#inTransaction = true;
        const transaction: Queryable = {
          query: <Row>(sql: string, params: readonly unknown[] = []) => this.#run<Row>(sql, params),
        };
        try {
          const value = await callback(transaction);
          this.#inTransaction = false;
          await this.#run('COMMIT', []);
          return value;
        } catch (error) {
          this.#inTransaction = false;
          await this.#run('ROLLBACK', []).catch(() => {});
          throw error;
        }
      },
      { durable: true },
    );
  }

  async listen(channel: string): Promise<() => Promise<void>> {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) {
      throw new RangeError('A channel name is lowercase letters, digits and underscores.');
    }
    // One process owns the database: it tells itself directly.
    return async () => {};
  }

  close(): Promise<void> {
    return this.#exclusive(
      async () => {
        if (this.#closed) return;
        this.#closed = true;
        await this.#onClose();
      },
      { bounded: false },
    );
  }
}

import type { PGlite } from '@electric-sql/pglite';
import { isBookkeepingWrite } from './bookkeeping-writes.js';
import type { Database, Queryable, QueryResult } from './database.js';
import { databaseBusyError } from './database-busy.js';
import {
  exchange,
  extendedBatch,
  FLUSH_WAL_SQL,
  PREPARE_FIXED_BATCH,
  PROBE_BATCH,
  simpleBatch,
} from './pglite-exchange.js';
import { probeRow, ResultCollector, resultOf } from './pglite-result.js';
import type { RowDecoder } from './row-decoder.js';
import { type PreparedStatement, runPrepared, StatementCache } from './statement-cache.js';

/** Named statements kept prepared on the one backend; later texts run unnamed. */
const MAX_PREPARED_STATEMENTS = 500;

/** The age at which a plan marked by `replannedAsTablesGrow` is made again (docs/decisions.md). */
const REPLAN_AFTER_MS = 1_000;

/** `in_failed_sql_transaction`: a statement of the transaction failed, which ended it. */
const IN_FAILED_TRANSACTION = '25P02';

/**
 * @internal The embedded database, spoken to in PostgreSQL's own protocol through PGlite's raw
 * entry (`execProtocolRawStream`), with the `pg` project's serializer and parser (`pg-protocol`,
 * see `pglite-exchange.ts`): each distinct SQL text with parameters becomes a named prepared
 * statement of the {@link StatementCache}, planned once, then only bound and executed; rows are
 * decoded by `rowDecoder` into the same values `pg` gives (but `timestamptz`, an ISO string),
 * errors are `pg-protocol`'s `DatabaseError`, the class `pg` throws. SQL without parameters goes
 * through the simple protocol, so one string may hold several statements (a migration). PGlite
 * is one single-user backend: statements and transactions take turns.
 */
export class PGliteDatabase implements Database {
  readonly driver = 'pglite' as const;
  readonly #pglite: PGlite;
  readonly #onClose: () => Promise<void>;
  readonly #statements: StatementCache<RowDecoder>;
  #turn: Promise<unknown> = Promise.resolve();
  readonly #maxQueued: number;
  #queued = 0;
  #inTransaction = false;
  #closed = false;
  /** Whether each query and transaction waits for a WAL flush that follows it (group commit). */
  readonly #groupCommit: boolean;
  /** Told each time a WAL flush statement is sent (tests count them). */
  readonly #onWalFlush: (() => void) | undefined;
  /** The WAL flush that is queued and has not started: work that ends before it joins it. */
  #nextFlush: Promise<void> | undefined;
  /** Queries and transactions that wrote, so far; and how many of them a flush has covered. */
  #writesEnded = 0;
  #writesFlushed = 0;
  #fixedPrepared = false;

  constructor(options: {
    pglite: PGlite;
    onClose: () => Promise<void>;
    maxQueued: number;
    groupCommit: boolean;
    onWalFlush?: () => void;
    now?: () => number; // ages prepared plans, in ms (StatementCacheOptions.now)
  }) {
    this.#statements = new StatementCache<RowDecoder>({
      prefix: 's',
      capacity: MAX_PREPARED_STATEMENTS,
      replanAfterMs: REPLAN_AFTER_MS,
      now: options.now,
    });
    this.#pglite = options.pglite;
    this.#onClose = options.onClose;
    this.#maxQueued = options.maxQueued;
    this.#groupCommit = options.groupCommit;
    this.#onWalFlush = options.onWalFlush;
  }

  queuedQueries(): number {
    return Math.max(0, this.#queued - 1); // #queued counts the one running too
  }

  /** Runs `work` on the engine once every earlier query is done, and none until it settles. */
  whileIdle<T>(work: (pglite: PGlite) => Promise<T>): Promise<T> {
    return this.#exclusive(
      async () => {
        if (this.#closed) throw new Error('The database is closed.');
        return work(this.#pglite);
      },
      { bounded: false },
    );
  }

  /**
   * Runs `work` once every earlier query and transaction is done; refused at once with
   * `database_busy` when too many wait already (closing and flushing always wait their turn).
   * With `durable` (queries and transactions) and group commit on, what `work` settled with is
   * handed over only once every write that ended so far is on stable storage: its own, and any
   * it may have read. With no such write waiting for a flush (a read after reads), at once.
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
      (value) => (this.#unflushed() ? this.#flushed().then(() => value) : value),
      (error: unknown) =>
        this.#unflushed()
          ? this.#flushed().then(() => Promise.reject(error))
          : Promise.reject(error),
    );
  }

  /** Whether a write has ended that no finished flush covers. */
  #unflushed(): boolean {
    return this.#writesEnded !== this.#writesFlushed;
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
          const covered = this.#writesEnded;
          // Closing checkpointed, which flushed the WAL.
          if (!this.#closed) {
            this.#onWalFlush?.();
            const collector = await this.#simple(FLUSH_WAL_SQL);
            if (collector.failure) throw collector.failure;
          }
          this.#writesFlushed = covered;
        },
        { bounded: false },
      ),
    );
    return this.#nextFlush;
  }

  async #exchange(batch: Buffer, collector: ResultCollector): Promise<void> {
    if (this.#closed) throw new Error('The database is closed.');
    await exchange(this.#pglite, batch, collector);
  }

  async #simple(sql: string): Promise<ResultCollector> {
    const collector = new ResultCollector(undefined);
    await this.#exchange(simpleBatch(sql), collector);
    return collector;
  }

  /** Runs `sql` with `params` in the extended protocol; with `probe`, says whether it wrote. */
  async #extended(
    statement: PreparedStatement<RowDecoder>,
    sql: string,
    params: readonly unknown[],
    probe: boolean,
  ): Promise<ResultCollector> {
    const { generic } = statement;
    if (generic || probe) await this.#prepareFixed();
    // A named statement is parsed once; the unnamed one (the cache full) on every run.
    const unprepared = statement.shape === undefined;
    const retired = this.#statements.takeRetired();
    const batch = extendedBatch({ retired, statement, sql, params, probe });
    const collector = new ResultCollector(statement.shape, { probe, generic });
    await this.#exchange(batch, collector);
    if (unprepared && collector.parsed && statement.name !== undefined) {
      statement.shape = collector.decoder ?? null;
    }
    if (collector.failure) throw collector.failure;
    return collector;
  }

  async #prepareFixed(): Promise<void> {
    if (this.#fixedPrepared) return;
    const collector = new ResultCollector(undefined);
    await this.#exchange(PREPARE_FIXED_BATCH, collector);
    if (collector.failure) throw collector.failure;
    this.#fixedPrepared = true;
  }

  /** One statement in a transaction of its own (outside {@link PGliteDatabase.transaction}). */
  async #runAlone<Row>(sql: string, params: readonly unknown[]): Promise<QueryResult<Row>> {
    if (params.length === 0) {
      // Several statements may share the string: whether they wrote is not asked, but assumed.
      if (this.#groupCommit) this.#writesEnded++;
      return resultOf<Row>(await this.#simple(sql));
    }
    const probe = this.#groupCommit;
    const collector = await runPrepared({
      cache: this.#statements,
      sql,
      retry: true,
      run: (statement) => this.#extended(statement, sql, params, probe),
    });
    if (collector.wrote) this.#writesEnded++;
    return resultOf<Row>(collector);
  }

  /** One statement inside the open transaction, which the statement's failure ends. */
  async #runInTransaction<Row>(sql: string, params: readonly unknown[]): Promise<QueryResult<Row>> {
    if (params.length === 0) return resultOf<Row>(await this.#simple(sql));
    const collector = await runPrepared({
      cache: this.#statements,
      sql,
      retry: false,
      run: (statement) => this.#extended(statement, sql, params, false),
    });
    return resultOf<Row>(collector);
  }

  /**
   * Whether the open transaction has written anything (asked before its `COMMIT`). A transaction
   * that a failed statement ended, and whose callback went on, wrote nothing: its `COMMIT` rolls
   * it back, on both drivers without an error.
   */
  async #transactionWrote(): Promise<boolean> {
    await this.#prepareFixed();
    const collector = new ResultCollector(probeRow);
    await this.#exchange(PROBE_BATCH, collector);
    if (collector.failure?.code === IN_FAILED_TRANSACTION) return false;
    if (collector.failure) throw collector.failure;
    return collector.rows[0]?.wrote === true;
  }

  query<Row = Record<string, unknown>>(
    sql: string,
    params: readonly unknown[] = [],
  ): Promise<QueryResult<Row>> {
    return this.#exclusive(() => this.#runAlone<Row>(sql, params), {
      durable: !isBookkeepingWrite(sql),
    });
  }

  transaction<T>(callback: (transaction: Queryable) => Promise<T>): Promise<T> {
    return this.#exclusive(
      async () => {
        const begun = await this.#simple('BEGIN');
        if (begun.failure) throw begun.failure;
        this.#inTransaction = true;
        const transaction: Queryable = {
          query: <Row>(sql: string, params: readonly unknown[] = []) =>
            this.#runInTransaction<Row>(sql, params),
        };
        try {
          const value = await callback(transaction);
          const wrote = this.#groupCommit && (await this.#transactionWrote());
          this.#inTransaction = false;
          // Counted before the COMMIT: a COMMIT that fails has written nothing, but a flush more
          // is harmless, and one less is not.
          if (wrote) this.#writesEnded++;
          resultOf(await this.#simple('COMMIT'));
          return value;
        } catch (error) {
          if (this.#inTransaction) {
            this.#inTransaction = false;
            await this.#simple('ROLLBACK').catch(() => {});
          }
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

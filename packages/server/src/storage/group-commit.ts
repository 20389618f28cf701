/** @internal Options of {@link GroupCommit}. */
export interface GroupCommitOptions {
  /** Runs `work` in the engine's next free turn (closing and flushing always wait theirs). */
  inTurn(work: () => Promise<void>): Promise<void>;
  /**
   * Sends the WAL flush statement, in the turn it is given; does nothing once the database is
   * closed (closing checkpointed, which flushed the WAL).
   */
  flushWal(): Promise<void>;
}

/**
 * @internal Group commit on the embedded database (`docs/decisions.md`, "Durable commits on the
 * embedded database"): counts the queries and transactions that wrote, and hands a result over
 * only once a WAL flush that started after it ended is done, one flush shared by every result
 * that ends before it starts. A flush that fails is the engine's PANIC: it is kept
 * ({@link GroupCommit.failure}) for the driver to fail every later query with.
 */
export class GroupCommit {
  readonly #options: GroupCommitOptions;
  /** The WAL flush that is queued and has not started: work that ends before it joins it. */
  #nextFlush: Promise<void> | undefined;
  /** Queries and transactions that wrote, so far; and how many of them a flush has covered. */
  #writesEnded = 0;
  #writesFlushed = 0;
  #failure: { error: unknown } | undefined;

  constructor(options: GroupCommitOptions) {
    this.#options = options;
  }

  /** Why a WAL flush failed, if one did. */
  get failure(): { error: unknown } | undefined {
    return this.#failure;
  }

  /** A query or transaction wrote (counted when it ends, before its `COMMIT` for a transaction). */
  wrote(): void {
    this.#writesEnded++;
  }

  /**
   * `result`, handed over once every write that ended so far is on stable storage: its own, and
   * any it may have read; at once when no write waits for a flush (a read after reads). A
   * failure waits too: a statement may have failed after reading a commit not yet flushed.
   */
  settled<T>(result: Promise<T>): Promise<T> {
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
   * one `fsync` for all of them.
   */
  #flushed(): Promise<void> {
    this.#nextFlush ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
      this.#options.inTurn(async () => {
        this.#nextFlush = undefined;
        const covered = this.#writesEnded;
        try {
          await this.#options.flushWal();
        } catch (error) {
          this.#failure ??= { error };
          throw error;
        }
        this.#writesFlushed = covered;
      }),
    );
    return this.#nextFlush;
  }
}

/**
 * @internal A SQL text as a prepared statement: its name on the database (`undefined`: the
 * unnamed statement, parsed and planned anew on every run), and what the driver learned from
 * its first run to read its rows (`undefined` until then; `null` for a statement without rows).
 */
export interface PreparedStatement<Shape> {
  readonly name: string | undefined;
  shape: Shape | null | undefined;
}

/** The texts marked by {@link planEachRun}. */
const plannedEachRun = new Set<string>();

/**
 * @internal Marks `sql` to run as the unnamed statement, planned for its parameters and the
 * tables as they are on every run, on both drivers; returns it unchanged. For a statement whose
 * best plan changes as its tables grow: a named statement keeps the generic plan made at its
 * sixth run for the life of the connection, and PGlite, which never analyzes, never replaces it.
 * The delivery worker's outcome update, planned that way while `deliveries` held a few hundred
 * rows, read the whole table for each batch once it held tens of thousands
 * (`docs/decisions.md`). The price is a parse and a plan per run; worth it for a statement that
 * runs once for many rows, not for the request path's one-row statements.
 */
export function planEachRun(sql: string): string {
  plannedEachRun.add(sql);
  return sql;
}

/** @internal Options of {@link StatementCache}. */
export interface StatementCacheOptions {
  /** The start of every statement name, so that two caches on one connection never meet. */
  prefix: string;
  /** The most SQL texts that get a name; the texts beyond run unnamed. */
  capacity: number;
}

/**
 * @internal The named prepared statements of one driver, by SQL text: both drivers plan each
 * text with parameters once and then only bind and execute it (`pg` through the `name` of its
 * query config, on each connection of the pool; PGlite, one backend, through `Parse` once).
 *
 * The first {@link StatementCacheOptions.capacity} texts get a name, kept for as long as the
 * database is open; later texts run unnamed. The server's statements are a fixed set written in
 * `stores/`, so the cache fills only when something sends ever new texts, and then the texts it
 * holds are still the ones the server began with; no name is closed to make room, since `pg`
 * cannot close a statement on every connection of its pool. A name is never given twice: `pg`
 * refuses a known name with another text.
 */
export class StatementCache<Shape> {
  readonly #statements = new Map<string, PreparedStatement<Shape>>();
  readonly #options: StatementCacheOptions;
  /** Names that no statement uses any more, for the driver to close where it can. */
  #retired: string[] = [];
  #issued = 0;

  constructor(options: StatementCacheOptions) {
    this.#options = options;
  }

  /**
   * The statement that runs `sql`: its named one, or a new unnamed one once the cache is full or
   * for a text marked by {@link planEachRun}.
   */
  statementOf(sql: string): PreparedStatement<Shape> {
    if (plannedEachRun.has(sql)) return { name: undefined, shape: undefined };
    let statement = this.#statements.get(sql);
    if (statement !== undefined) return statement;
    if (this.#statements.size >= this.#options.capacity)
      return { name: undefined, shape: undefined };
    statement = { name: this.#nextName(), shape: undefined };
    this.#statements.set(sql, statement);
    return statement;
  }

  /**
   * Gives `sql` a new name, to be prepared again, after its plan could not run any more (a table
   * changed under it); the old name is retired.
   */
  replan(sql: string): void {
    const old = this.#statements.get(sql);
    if (old === undefined) return;
    if (old.name !== undefined) this.#retired.push(old.name);
    this.#statements.set(sql, { name: this.#nextName(), shape: undefined });
  }

  /** The names retired since the last call, which the database may still hold prepared. */
  takeRetired(): string[] {
    const retired = this.#retired;
    if (retired.length > 0) this.#retired = [];
    return retired;
  }

  #nextName(): string {
    return `${this.#options.prefix}${++this.#issued}`;
  }
}

/**
 * PostgreSQL's "cached plan must not change result type" (`feature_not_supported`): a table
 * changed under a prepared statement (a migration, by this instance or another).
 */
const PLAN_RESULT_CHANGED = '0A000';

/**
 * @internal Runs `sql` as its prepared statement through `run`. When its plan no longer fits the
 * tables, the text is planned again under a new name and, if `retry` allows it, run once more:
 * not inside a transaction, which the error has ended.
 */
export async function runPrepared<Shape, Result>(options: {
  cache: StatementCache<Shape>;
  sql: string;
  retry: boolean;
  run: (statement: PreparedStatement<Shape>) => Promise<Result>;
}): Promise<Result> {
  const { cache, sql, retry, run } = options;
  const statement = cache.statementOf(sql);
  try {
    return await run(statement);
  } catch (error) {
    if (
      statement.name === undefined ||
      (error as { code?: unknown }).code !== PLAN_RESULT_CHANGED
    ) {
      throw error;
    }
    cache.replan(sql);
    if (!retry) throw error;
    return run(cache.statementOf(sql));
  }
}

/**
 * @internal A SQL text as a prepared statement: its name on the database (`undefined`: the
 * unnamed statement, parsed and planned anew on every run), and what the driver learned from
 * its first run to read its rows (`undefined` until then; `null` for a statement without rows).
 */
export interface PreparedStatement<Shape> {
  readonly name: string | undefined;
  shape: Shape | null | undefined;
  /**
   * Whether the driver runs it with its generic plan (`plan_cache_mode` `force_generic_plan`):
   * a text marked by {@link replannedAsTablesGrow} in a cache that prepares it again as it ages.
   */
  readonly generic: boolean;
}

/** The texts marked by {@link replannedAsTablesGrow}. */
const replanned = new Set<string>();

/**
 * @internal Marks `sql` as a statement whose best plan changes as its tables grow, but not with
 * its values; returns it unchanged. A named statement that settles on a generic plan (at its
 * sixth run) keeps it until something invalidates it. On PostgreSQL, an ANALYZE does:
 * autovacuum's, once a table has changed by a thousand rows and 2 % (migration 27), and on a new
 * database, before autovacuum's first visit, the delivery worker's (`delivery/first-analyze.ts`);
 * so such a text is prepared as any other. PGlite never analyzes, and kept it for the life of the
 * database: the delivery worker's outcome update, planned while `deliveries` held a few hundred
 * rows, read the whole table for each batch once it held tens of thousands (`docs/decisions.md`;
 * PostgreSQL did the same before its first ANALYZE). A cache with
 * {@link StatementCacheOptions.replanAfterMs} (PGlite's) prepares a marked text again, under a
 * new name, once its plan is that old, and has it run with that one generic plan
 * ({@link PreparedStatement.generic}): left to choose, PostgreSQL often plans the worker's
 * statements, whose arrays of ids make a plan for their values look cheaper, anew on every run.
 * A plan is then made for the tables as they are at most that long ago, and planning costs one
 * plan per period instead of one per run.
 */
export function replannedAsTablesGrow(sql: string): string {
  replanned.add(sql);
  return sql;
}

/** @internal Options of {@link StatementCache}. */
export interface StatementCacheOptions {
  /** The start of every statement name, so that two caches on one connection never meet. */
  prefix: string;
  /** The most SQL texts that get a name; the texts beyond run unnamed. */
  capacity: number;
  /**
   * How old, in milliseconds, the prepared plan of a text marked by
   * {@link replannedAsTablesGrow} may get before the text is prepared again under a new name;
   * without it, marked texts are kept as any other (the database replaces their plans itself).
   */
  replanAfterMs?: number;
  /** The clock of {@link replanAfterMs}, in milliseconds; `performance.now` unless given. */
  now?: (() => number) | undefined;
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
  /** When each marked text's current name was given, by {@link StatementCacheOptions.now}. */
  readonly #namedAt = new Map<string, number>();
  readonly #options: StatementCacheOptions;
  readonly #now: () => number;
  /** Names that no statement uses any more, for the driver to close where it can. */
  #retired: string[] = [];
  #issued = 0;

  constructor(options: StatementCacheOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
  }

  /**
   * The statement that runs `sql`: its named one, or a new unnamed one once the cache is full. A
   * text marked by {@link replannedAsTablesGrow} whose name is older than
   * {@link StatementCacheOptions.replanAfterMs} is given a new one first.
   */
  statementOf(sql: string): PreparedStatement<Shape> {
    const statement = this.#statements.get(sql);
    if (statement !== undefined) {
      if (!this.#planExpired(sql)) return statement;
      this.replan(sql);
      return this.#statements.get(sql) as PreparedStatement<Shape>;
    }
    if (this.#statements.size >= this.#options.capacity)
      return { name: undefined, shape: undefined, generic: false };
    return this.#name(sql);
  }

  /**
   * Gives `sql` a new name, to be prepared again, after its plan could not run any more (a table
   * changed under it); the old name is retired.
   */
  replan(sql: string): void {
    const old = this.#statements.get(sql);
    if (old === undefined) return;
    if (old.name !== undefined) this.#retired.push(old.name);
    this.#name(sql);
  }

  /** The names retired since the last call, which the database may still hold prepared. */
  takeRetired(): string[] {
    const retired = this.#retired;
    if (retired.length > 0) this.#retired = [];
    return retired;
  }

  /** Gives `sql` a name never given before. */
  #name(sql: string): PreparedStatement<Shape> {
    const generic = this.#options.replanAfterMs !== undefined && replanned.has(sql);
    const name = `${this.#options.prefix}${++this.#issued}`;
    const statement = { name, shape: undefined, generic };
    this.#statements.set(sql, statement);
    if (generic) this.#namedAt.set(sql, this.#now());
    return statement;
  }

  /** Whether `sql` is a marked text whose plan is older than the cache lets it get. */
  #planExpired(sql: string): boolean {
    const namedAt = this.#namedAt.get(sql);
    const { replanAfterMs } = this.#options;
    return (
      namedAt !== undefined && replanAfterMs !== undefined && this.#now() - namedAt >= replanAfterMs
    );
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

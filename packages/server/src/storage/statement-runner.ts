import type pg from 'pg';
import type { QueryResult } from './database.js';

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
export class StatementRunner {
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

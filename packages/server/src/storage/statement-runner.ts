import type pg from 'pg';
import type { QueryResult } from './database.js';
import { runPrepared, StatementCache } from './statement-cache.js';

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

/** @internal How the rows of one statement are made into objects, for its columns. */
interface RowShape {
  fields: readonly pg.FieldDef[];
  build: RowBuilder;
}

/**
 * @internal Runs statements on a `pg` pool or client: SQL with parameters as a named prepared
 * statement of the {@link StatementCache} (planned once per connection; up to
 * {@link MAX_NAMED_STATEMENTS} distinct texts, unnamed beyond), rows fetched in array mode and
 * made into objects by a builder kept with the statement. SQL without parameters goes through
 * the simple protocol, so a string may hold several statements (a migration); the last one's
 * result is kept.
 */
export class StatementRunner {
  readonly #statements = new StatementCache<RowShape>({
    prefix: 'f',
    capacity: MAX_NAMED_STATEMENTS,
  });

  /**
   * @param retry - Whether a statement whose result type changed under it (a migration by
   *   another instance) may run again, planned anew: not inside a transaction, which the error
   *   ended.
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
    return runPrepared({
      cache: this.#statements,
      sql,
      retry,
      run: async (statement) => {
        const result = await client.query({
          text: sql,
          values: params as unknown[],
          rowMode: 'array',
          ...(statement.name === undefined ? {} : { name: statement.name }),
        });
        let shape = statement.shape;
        if (shape == null || !sameFields(shape.fields, result.fields)) {
          shape = { fields: result.fields, build: rowBuilder(result.fields.map((f) => f.name)) };
          statement.shape = shape;
        }
        const rows = new Array<Row>(result.rows.length);
        for (let index = 0; index < rows.length; index++) {
          rows[index] = shape.build(result.rows[index] as unknown[]) as Row;
        }
        return { rows, rowCount: result.rowCount ?? rows.length };
      },
    });
  }
}

function sameFields(a: readonly pg.FieldDef[], b: readonly pg.FieldDef[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) {
    if (a[index]?.name !== b[index]?.name) return false;
  }
  return true;
}

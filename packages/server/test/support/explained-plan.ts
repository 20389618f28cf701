import type { Queryable } from '../../src/storage/database.js';

/** A node of PostgreSQL's `EXPLAIN (FORMAT JSON)`, with the fields the plan tests read. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

/** A value as an SQL literal of unknown type (its parameter's type applies); `null` as NULL. */
export function literalOf(value: unknown): string {
  if (value === null) return 'NULL';
  const text = Array.isArray(value)
    ? `{${value.map((item) => (item === null ? 'NULL' : `"${String(item)}"`)).join(',')}}`
    : value instanceof Date
      ? value.toISOString()
      : String(value);
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * The plan of `sql` as the server runs it, a prepared statement, executed with `values`: with
 * the plan made for those values, or with the generic plan the plan cache settles on after five
 * runs. Run it on one connection (in a transaction): the setting and the statement are the
 * session's.
 */
export async function preparedPlanOf(
  database: Queryable,
  sql: string,
  values: unknown[],
  mode: 'force_generic_plan' | 'force_custom_plan',
): Promise<PlanNode> {
  await database.query(`SET plan_cache_mode = ${mode}`);
  await database.query(`PREPARE explained AS ${sql}`);
  try {
    // EXECUTE takes no placeholders: the values as literals, of the types the statement gave them.
    const { rows } = await database.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
      `EXPLAIN (FORMAT JSON) EXECUTE explained (${values.map(literalOf).join(', ')})`,
    );
    const plan = rows[0]?.['QUERY PLAN'][0]?.Plan;
    if (plan === undefined) throw new Error('EXPLAIN answered no plan');
    return plan;
  } finally {
    await database.query('DEALLOCATE explained');
    await database.query('RESET plan_cache_mode');
  }
}

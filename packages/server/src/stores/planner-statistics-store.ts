import type { Queryable } from '../storage/database.js';

// PostgreSQL's statistics of the tables every webhook writes (delivery/first-analyze.ts reads
// and makes them). PGlite keeps none and needs none here: its driver plans the worker's
// statements again every second (storage/statement-cache.ts).

/** @internal The tables every webhook writes, and whose plans grow with them without statistics. */
export const DELIVERY_TABLES = ['deliveries', 'outbox_events'] as const;

/** @internal One of {@link DELIVERY_TABLES}. */
export type DeliveryTable = (typeof DELIVERY_TABLES)[number];

/** @internal What PostgreSQL's statistics views say of one of {@link DELIVERY_TABLES}. */
export interface DeliveryTableStatistics {
  table: DeliveryTable;
  /** Whether it was ever analyzed, by autovacuum or by an `ANALYZE`. */
  analyzed: boolean;
  /** Rows inserted, updated or deleted since its last analyze (or since it was made). */
  changed: number;
}

/**
 * @internal Whether each of {@link DELIVERY_TABLES} (in the connection's schema) was ever
 * analyzed, and how many rows changed since, as far as the connections that changed them have
 * reported: PostgreSQL takes a connection's counts at most once a second, so they lag a little.
 */
export async function readDeliveryTableStatistics(
  database: Queryable,
): Promise<DeliveryTableStatistics[]> {
  const { rows } = await database.query<{
    table: DeliveryTable;
    analyzed: boolean;
    changed: string;
  }>(
    `SELECT relname AS table,
            (last_analyze IS NOT NULL OR last_autoanalyze IS NOT NULL) AS analyzed,
            n_mod_since_analyze::text AS changed
       FROM pg_stat_user_tables
      WHERE relid = ANY ($1::text[]::regclass[])
      ORDER BY relname`,
    [DELIVERY_TABLES],
  );
  return rows.map((row) => ({
    table: row.table,
    analyzed: row.analyzed,
    changed: Number(row.changed),
  }));
}

/**
 * @internal Gathers PostgreSQL's statistics of `tables` (`ANALYZE`), which also makes every
 * connection plan its prepared statements on them again. A role that does not own a table gets a
 * warning from PostgreSQL, not an error, and the table is left to autovacuum.
 */
export async function analyzeDeliveryTables(
  database: Queryable,
  tables: readonly DeliveryTable[],
): Promise<void> {
  // Names from the fixed list only: they are written into the statement.
  const known = tables.filter((table) => DELIVERY_TABLES.includes(table));
  if (known.length === 0) return;
  await database.query(`ANALYZE ${known.join(', ')}`);
}

import { FINISHED_TRANSACTIONS_BOUND } from '../storage/change-order.js';
import type { Queryable } from '../storage/database.js';

/** @internal The filters a keyset list offers, beside `updatedSince` and `sort`. */
export interface KeysetListFilters {
  /**
   * A repeatable exact filter on a column, such as `lifecycle` or `stage`, by an enumeration:
   * its known values, and whether others are allowed (see `enumFilterParameter`).
   */
  oneOf?: {
    parameter: string;
    column: string;
    values: readonly [string, ...string[]];
    open: boolean;
  };
  /** `email`: exact and case-insensitive, on this column. */
  email?: string;
  /**
   * `q`: a case-insensitive prefix of any of these columns, each served by a
   * `lower(column) text_pattern_ops` index (see {@link prefixSource}); `description` says which
   * fields it searches, as the API reference shows it.
   */
  search?: { columns: readonly string[]; description: string };
}

/** @internal What a keyset page reads from. */
export interface KeysetListSource {
  table: string;
  /** The select list of an item's columns. */
  columns: string;
  filters: KeysetListFilters;
  toItem: (row: Record<string, unknown>) => Record<string, unknown>;
}

/**
 * @internal Where a keyset walk stands: after the row with this `createdAt` (microseconds, as
 * the database holds it) and `id`, or after the change `(xid, seq)`.
 */
export type KeysetPosition =
  | { kind: 'createdAt'; createdAt: string; id: string }
  | { kind: 'change'; xid: string; seq: string };

/** @internal What {@link readKeysetPage} reads: the query's values, already validated. */
export interface KeysetPageRequest {
  /** The order: `createdAt` or the change order, oldest first unless `descending`. */
  kind: KeysetPosition['kind'];
  descending: boolean;
  /** Where the page starts, from the cursor; the first page without. */
  position?: KeysetPosition | undefined;
  /** The values of the `oneOf` filter. */
  oneOf?: readonly string[] | undefined;
  email?: string | undefined;
  q?: string | undefined;
  updatedSince?: string | undefined;
  /** How many items the page holds; one row more is read. */
  limit: number;
  offset?: number | undefined;
}

/**
 * @internal The rows of `q`: every row whose `lower(column)` starts with `lower(prefix)` for any
 * of the columns, read through the `lower(column) text_pattern_ops` indexes as byte ranges
 * (`~>=~ prefix` and `~<~ prefix || U+10FFFF`), materialized, so that the page is sorted from
 * them. The ranges take a parameter (a generic plan of a named statement can use them; a LIKE
 * pattern could not), and the materialized set keeps the planner from walking the createdAt
 * index and filtering instead: a search costs what it matches, never a scan of the table.
 */
export function prefixSource(table: string, columns: readonly string[], prefix: string): string {
  const branches = columns.map(
    (column) =>
      `SELECT * FROM ${table} WHERE lower(${column}) ~>=~ lower(${prefix}) AND lower(${column}) ~<~ (lower(${prefix}) || chr(1114111))`,
  );
  return `(WITH matches AS MATERIALIZED (${branches.join(' UNION ')}) SELECT * FROM matches) AS ${table}`;
}

/** @internal The filters of {@link readKeysetPage} and {@link countKeysetRows}. */
export type KeysetFilterRequest = Pick<KeysetPageRequest, 'oneOf' | 'email' | 'q' | 'updatedSince'>;

/**
 * The conditions and the search source of a list's filters, their values pushed through
 * `parameter`: one text for the page and its count, so that "N contacts" counts the rows the
 * pages show.
 */
function filterClauses(
  source: KeysetListSource,
  request: KeysetFilterRequest,
  parameter: (value: unknown) => string,
): { conditions: string[]; searchFrom: string | undefined } {
  const { filters } = source;
  const conditions: string[] = [];
  let searchFrom: string | undefined;
  if (filters.oneOf && request.oneOf) {
    conditions.push(`${filters.oneOf.column} = ANY(${parameter(request.oneOf)}::text[])`);
  }
  if (filters.email && request.email !== undefined) {
    conditions.push(`lower(${filters.email}) = lower(${parameter(request.email)})`);
  }
  if (filters.search && request.q !== undefined) {
    searchFrom = prefixSource(source.table, filters.search.columns, parameter(request.q));
  }
  if (request.updatedSince !== undefined) {
    conditions.push(`updated_at >= ${parameter(request.updatedSince)}::timestamptz`);
  }
  return { conditions, searchFrom };
}

/**
 * @internal How many rows the list's filters match: the count of every page of
 * {@link readKeysetPage} with these filters together (the web application's "N contacts"). A
 * search costs what it matches, as a page does; without one, a count of the table's rows.
 */
export async function countKeysetRows(
  queryable: Queryable,
  count: { source: KeysetListSource; request: KeysetFilterRequest },
): Promise<number> {
  const params: unknown[] = [];
  const parameter = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const { conditions, searchFrom } = filterClauses(count.source, count.request, parameter);
  const where = conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';
  const { rows } = await queryable.query<{ count: string }>(
    `SELECT count(*) AS count FROM ${searchFrom ?? count.source.table}${where}`,
    params,
  );
  return Number(rows[0]?.count ?? 0);
}

/**
 * @internal The rows of one keyset page, up to `limit + 1` (one more tells that another page
 * exists), each with its cursor columns: `cursor_at` (the `createdAt` order) or `cursor_xid` and
 * `cursor_seq` (the change order). Orders: `createdAt` is `created_at, id`; the change order is
 * `(change_xid, change_seq)`: oldest first it reads only changes of transactions that have ended
 * (see change-order.ts), so a walk meets every change once while writes continue. A page costs
 * an index range scan from its position, wherever that is; `offset` still skips rows as before.
 */
export async function readKeysetPage(
  queryable: Queryable,
  page: { source: KeysetListSource; request: KeysetPageRequest },
): Promise<Record<string, unknown>[]> {
  const { source, request } = page;
  const { kind, descending, position } = request;
  const params: unknown[] = [];
  const parameter = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const { conditions, searchFrom } = filterClauses(source, request, parameter);
  const after = descending ? '<' : '>';
  const direction = descending ? ' DESC' : '';
  let order: string;
  let cursorColumn: string;
  if (kind === 'change') {
    if (position?.kind === 'change') {
      conditions.push(
        `(change_xid, change_seq) ${after} (${parameter(position.xid)}::xid8, ${parameter(position.seq)}::bigint)`,
      );
    }
    // Oldest first, only changes of transactions that have ended before every one still running:
    // a change that commits later takes its place after this page's (see change-order.ts).
    if (!descending) conditions.push(`change_xid < ${FINISHED_TRANSACTIONS_BOUND}`);
    order = `change_xid${direction}, change_seq${direction}`;
    cursorColumn = 'change_xid::text AS cursor_xid, change_seq::text AS cursor_seq';
  } else {
    if (position?.kind === 'createdAt') {
      conditions.push(
        `(created_at, id) ${after} (${parameter(position.createdAt)}::timestamptz, ${parameter(position.id)})`,
      );
    }
    order = `created_at${direction}, id${direction}`;
    // The text form, to the microsecond; only the last row's becomes a cursor (cursorTimestamp).
    cursorColumn = 'created_at::text AS cursor_at';
  }
  const where = conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';
  // One row more than asked tells whether another page exists, without a count. After a cursor,
  // the number is written into the text (a validated integer, 2 to 201): with a parameter there,
  // the planner rates the statement's generic plan (a row comparison against unknown values,
  // guessed to match a third of the table) above a custom one and plans it anew for every page,
  // about a third of the embedded database's time for the page. Each limit is its own statement.
  const rowsWanted = request.limit + 1;
  if (!Number.isSafeInteger(rowsWanted)) throw new RangeError('limit must be an integer.');
  const limit = position ? String(rowsWanted) : parameter(rowsWanted);
  const offset = request.offset ? ` OFFSET ${parameter(request.offset)}` : '';
  const { rows } = await queryable.query(
    `SELECT ${source.columns}, ${cursorColumn} FROM ${searchFrom ?? source.table}${where} ORDER BY ${order} LIMIT ${limit}${offset}`,
    params,
  );
  return rows;
}

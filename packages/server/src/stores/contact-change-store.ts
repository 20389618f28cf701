import { type ChangePosition, FINISHED_TRANSACTIONS_BOUND } from '../storage/change-order.js';
import type { Queryable } from '../storage/database.js';
import { contactStorage } from './contact-store.js';
import { itemColumns, itemFromRow } from './resource-rows.js';

/** @internal One change of the contact feed, with its position in change order. */
export type ContactChange =
  | { type: 'changed'; contact: Record<string, unknown>; position: ChangePosition }
  | { type: 'deleted'; id: string; deletedAt: string; position: ChangePosition };

interface ChangeRow extends Record<string, unknown> {
  cursor_xid: string;
  cursor_seq: string;
}

// The order's columns (for the merge's ORDER BY), and their text for a cursor.
const positionColumns =
  'change_xid, change_seq, change_xid::text AS cursor_xid, change_seq::text AS cursor_seq';

/**
 * @internal The first transaction that may still commit: every transaction below it has ended,
 * and every change from now on is at or above it.
 */
export async function finishedTransactionsBound(queryable: Queryable): Promise<string> {
  const { rows: bound } = await queryable.query<{ xid: string }>(
    `SELECT ${FINISHED_TRANSACTIONS_BOUND}::text AS xid`,
  );
  return bound[0]?.xid ?? '0';
}

/**
 * @internal Up to `limit` changes to contacts after `after`, in change order, with
 * `updatedSince` (ISO 8601) when given: the contacts created or updated (as they are now) and
 * those deleted (from the tombstones), read in one statement, one snapshot. Only changes of
 * transactions that have ended are read (see change-order.ts).
 */
export async function readContactChanges(
  queryable: Queryable,
  request: { after: ChangePosition; limit: number; updatedSince?: string | undefined },
): Promise<ContactChange[]> {
  const { after, limit, updatedSince } = request;
  const columns = itemColumns(contactStorage);
  const since = updatedSince === undefined ? '' : ' AND updated_at >= $4::timestamptz';
  const deletedSince = updatedSince === undefined ? '' : ' AND deleted_at >= $4::timestamptz';
  const params = [
    after.xid,
    after.seq,
    limit,
    ...(updatedSince === undefined ? [] : [updatedSince]),
  ];
  const changed = `(change_xid, change_seq) > ($1::xid8, $2::bigint)
                   AND change_xid < ${FINISHED_TRANSACTIONS_BOUND}`;
  // One read, one snapshot: both tables at the same instant. Each side is an index range
  // on (change_xid, change_seq); the merge keeps the first `limit` of the two.
  const { rows } = await queryable.query<ChangeRow>(
    `(SELECT ${positionColumns}, ${columns}, NULL::timestamptz AS deleted_at
            FROM contacts WHERE ${changed}${since}
           ORDER BY change_xid, change_seq LIMIT $3)
         UNION ALL
         (SELECT ${positionColumns}, id, ${columns
           .split(', ')
           .slice(1)
           .map((column) => `NULL AS ${column}`)
           .join(', ')}, deleted_at
            FROM contact_tombstones WHERE ${changed}${deletedSince}
           ORDER BY change_xid, change_seq LIMIT $3)
         ORDER BY change_xid, change_seq LIMIT $3`,
    params,
  );
  return rows.map((row) => {
    const position = { xid: row.cursor_xid, seq: row.cursor_seq };
    return row.deleted_at === null
      ? { type: 'changed' as const, contact: itemFromRow(contactStorage, row), position }
      : {
          type: 'deleted' as const,
          id: String(row.id),
          deletedAt: row.deleted_at as string,
          position,
        };
  });
}

/**
 * @internal Where the contact feed's pruning has reached (`feed` names it in
 * `change_feed_horizons`): the last change position pruned and the time before which tombstones
 * were pruned; `undefined` while nothing was.
 */
export async function readFeedHorizon(
  queryable: Queryable,
  feed: string,
): Promise<{ xid: string; seq: string; before: string } | undefined> {
  const { rows: horizons } = await queryable.query<{
    xid: string;
    seq: string;
    before: string;
  }>(
    `SELECT pruned_through_xid::text AS xid, pruned_through_seq::text AS seq,
                  pruned_before AS before
             FROM change_feed_horizons WHERE feed = $1`,
    [feed],
  );
  return horizons[0];
}

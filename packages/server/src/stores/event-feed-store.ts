import type { ChangePosition } from '../storage/change-order.js';
import { FINISHED_TRANSACTIONS_BOUND } from '../storage/change-order.js';
import type { Queryable } from '../storage/database.js';

/** @internal One event as the feed reads it from `outbox_events`, with its change position. */
export interface EventFeedRow {
  seq: string;
  xid: string;
  id: string;
  event: string;
  data: Record<string, unknown>;
  previous_attributes: Record<string, unknown> | null;
  created_at: string;
}

/** @internal The change position of the event with this id, if the server holds it. */
export async function findEventPosition(
  database: Queryable,
  id: string,
): Promise<ChangePosition | undefined> {
  const { rows } = await database.query<{ xid: string; seq: string }>(
    'SELECT xid::text AS xid, seq::text AS seq FROM outbox_events WHERE id = $1',
    [id],
  );
  return rows[0];
}

/**
 * @internal At most `limit` events of the given kinds after `position`, in `(xid, seq)` order,
 * of transactions that ended before every transaction still running (migration 8 says why).
 */
export async function readEventsAfter(
  database: Queryable,
  read: { position: ChangePosition; kinds: readonly string[]; limit: number },
): Promise<EventFeedRow[]> {
  // The order names the table's columns: `xid` and `seq` alone would be the text columns of
  // the select list, in which '100' comes before '99'.
  const { rows } = await database.query<EventFeedRow>(
    `SELECT seq::text AS seq, xid::text AS xid, id, event, data, previous_attributes, created_at
       FROM outbox_events
      WHERE (xid, seq) > ($1::xid8, $2::bigint)
        AND xid < ${FINISHED_TRANSACTIONS_BOUND}
        AND event = ANY($3::text[])
      ORDER BY outbox_events.xid, outbox_events.seq
      LIMIT $4`,
    [read.position.xid, read.position.seq, [...read.kinds], read.limit],
  );
  return rows;
}

/**
 * @internal The event with this id as the feed reads it, or `undefined` when the server does not
 * hold it (never written, or pruned by retention).
 */
export async function findEvent(
  database: Queryable,
  id: string,
): Promise<EventFeedRow | undefined> {
  const { rows } = await database.query<EventFeedRow>(
    `SELECT seq::text AS seq, xid::text AS xid, id, event, data, previous_attributes, created_at
       FROM outbox_events WHERE id = $1`,
    [id],
  );
  return rows[0];
}

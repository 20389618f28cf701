import type { Queryable } from '../storage/database.js';

// Retention's deletes on tables whose own stores belong to other families (deliveries and the
// outbox, the contact change feed): each is one statement, kept here until those stores exist.

/**
 * @internal Deletes finished deliveries (delivered or dead) created before `createdBefore`,
 * with their attempts; answers how many of each went.
 */
export async function pruneFinishedDeliveries(
  database: Queryable,
  createdBefore: Date,
): Promise<{ deliveries: number; attempts: number }> {
  // Attempts go with their delivery (ON DELETE CASCADE); the statement's snapshot counts them.
  const { rows } = await database.query<{ deliveries: number; attempts: number }>(
    `WITH gone AS (
       DELETE FROM deliveries
        WHERE state IN ('delivered', 'dead') AND created_at < $1
       RETURNING id)
     SELECT (SELECT count(*) FROM gone)::int AS deliveries,
            (SELECT count(*) FROM delivery_attempts
              WHERE delivery_id IN (SELECT id FROM gone))::int AS attempts`,
    [createdBefore],
  );
  return { deliveries: rows[0]?.deliveries ?? 0, attempts: rows[0]?.attempts ?? 0 };
}

/**
 * @internal Deletes dispatched outbox events created before `createdBefore` that no pending
 * delivery still needs; answers how many went.
 */
export async function pruneDispatchedEvents(
  database: Queryable,
  createdBefore: Date,
): Promise<number> {
  const { rowCount } = await database.query(
    `DELETE FROM outbox_events e
      WHERE e.dispatched_at IS NOT NULL AND e.created_at < $1
        AND NOT EXISTS (SELECT 1 FROM deliveries d
                         WHERE d.event_id = e.id AND d.state = 'pending')`,
    [createdBefore],
  );
  return rowCount;
}

/**
 * @internal Deletes the tombstones of contacts deleted before `deletedBefore` and moves the
 * change feed's horizon past them, in one statement; answers how many went.
 */
export async function pruneContactTombstones(
  database: Queryable,
  prune: { deletedBefore: Date; feed: string },
): Promise<number> {
  // The tombstones and the horizon move together: a reader sees both or neither.
  // The horizon is the last pruned change in change order, (change_xid, change_seq).
  const later = `(EXCLUDED.pruned_through_xid, EXCLUDED.pruned_through_seq)
                   > (change_feed_horizons.pruned_through_xid, change_feed_horizons.pruned_through_seq)`;
  const { rows } = await database.query<{ count: number }>(
    `WITH gone AS (
       DELETE FROM contact_tombstones WHERE deleted_at < $1 RETURNING change_xid, change_seq),
     last AS (SELECT change_xid, change_seq FROM gone
               ORDER BY change_xid DESC, change_seq DESC LIMIT 1),
     horizon AS (
       INSERT INTO change_feed_horizons (feed, pruned_through_xid, pruned_through_seq, pruned_before)
       SELECT $2, change_xid, change_seq, $1 FROM last
       ON CONFLICT (feed) DO UPDATE
         SET pruned_through_xid = CASE WHEN ${later} THEN EXCLUDED.pruned_through_xid
                                       ELSE change_feed_horizons.pruned_through_xid END,
             pruned_through_seq = CASE WHEN ${later} THEN EXCLUDED.pruned_through_seq
                                       ELSE change_feed_horizons.pruned_through_seq END,
             pruned_before = GREATEST(change_feed_horizons.pruned_before, EXCLUDED.pruned_before))
     SELECT count(*)::int AS count FROM gone`,
    [prune.deletedBefore, prune.feed],
  );
  return rows[0]?.count ?? 0;
}

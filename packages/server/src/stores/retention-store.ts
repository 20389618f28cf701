import type { Queryable } from '../storage/database.js';

// Retention's delete of the contact change feed's tombstones, one statement; those of
// deliveries and the outbox are in delivery-store.ts and outbox-store.ts.

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

/**
 * @internal Retention of the contact change feed's tombstones: an index to prune them by age,
 * and the horizon of each change feed, the highest change number pruned and the cutoff time of
 * that prune, so that a sync position or an `updatedSince` from before it can be told to resync
 * rather than silently miss the deletions that were pruned.
 */
export const tombstoneRetention = `
CREATE INDEX contact_tombstones_deleted_at ON contact_tombstones (deleted_at);

CREATE TABLE change_feed_horizons (
  feed text PRIMARY KEY,
  pruned_through_seq bigint NOT NULL,
  pruned_before timestamptz NOT NULL
);
`;

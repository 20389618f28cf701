/**
 * @internal Change order by writing transaction, so that writers no longer take turns: each
 * change (a contact or deal inserted or updated, a contact's tombstone, an audit entry) records
 * the id of the transaction that wrote it (`xid8`, `pg_current_xact_id()`), beside its sequence
 * number. A walk reads only changes whose transaction ended before every transaction still
 * running (`xid < pg_snapshot_xmin(pg_current_snapshot())`), in `(xid, seq)` order: every
 * transaction that can still commit has an id at or above that bound, so nothing can commit
 * behind a position a reader already handed out. This replaces the advisory locks that writers
 * held until commit (migrations 1 and 7), the same design as the event feed (migration 8).
 *
 * Rows from before hold `1`, below every real transaction id, so they keep their sequence order
 * (which was commit order under the locks) ahead of every later change, and a cursor made before
 * the upgrade (a sequence number alone) is the position `(1, seq)`. Inserts fill the column by
 * default; updates set it with their new sequence number. `change_feed_horizons` keeps the
 * transaction of its pruned position too.
 */
export const transactionChangeOrder = `
ALTER TABLE contacts ADD COLUMN change_xid xid8 NOT NULL DEFAULT '1';
ALTER TABLE contacts ALTER COLUMN change_xid SET DEFAULT pg_current_xact_id();
CREATE INDEX contacts_change_order ON contacts (change_xid, change_seq);

ALTER TABLE contact_tombstones ADD COLUMN change_xid xid8 NOT NULL DEFAULT '1';
ALTER TABLE contact_tombstones ALTER COLUMN change_xid SET DEFAULT pg_current_xact_id();
CREATE INDEX contact_tombstones_change_order ON contact_tombstones (change_xid, change_seq);

ALTER TABLE deals ADD COLUMN change_xid xid8 NOT NULL DEFAULT '1';
ALTER TABLE deals ALTER COLUMN change_xid SET DEFAULT pg_current_xact_id();
CREATE INDEX deals_change_order ON deals (change_xid, change_seq);

ALTER TABLE audit_entries ADD COLUMN xid xid8 NOT NULL DEFAULT '1';
ALTER TABLE audit_entries ALTER COLUMN xid SET DEFAULT pg_current_xact_id();
CREATE INDEX audit_entries_walk ON audit_entries (xid, seq);

ALTER TABLE change_feed_horizons ADD COLUMN pruned_through_xid xid8 NOT NULL DEFAULT '1';
`;

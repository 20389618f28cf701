/**
 * @internal The event feed (`GET /api/events`) and `*.updated` events.
 *
 * `xid` is the writing transaction's id. A reader returns only rows whose transaction ended
 * before every transaction still running (`xid < pg_snapshot_xmin(pg_current_snapshot())`), in
 * `(xid, seq)` order, so an event committed late by a long transaction can never land behind a
 * cursor that already passed its place: a walk sees every event exactly once while writes go on,
 * without serializing the writers. `previous_attributes` holds an update's former values.
 */
export const eventFeed = `
ALTER TABLE outbox_events ADD COLUMN previous_attributes jsonb;
ALTER TABLE outbox_events ADD COLUMN xid xid8;
UPDATE outbox_events SET xid = '1'::xid8 WHERE xid IS NULL;
ALTER TABLE outbox_events ALTER COLUMN xid SET DEFAULT pg_current_xact_id();
ALTER TABLE outbox_events ALTER COLUMN xid SET NOT NULL;
CREATE INDEX outbox_events_feed ON outbox_events (xid, seq);
`;

/**
 * @internal Delivery's hot paths read only what they return, however large the backlog
 * (docs/decisions.md, "Delivery's cost does not grow with its backlog"):
 *
 * - `deliveries_endpoint_due` holds the pending deliveries only (those with a next attempt, which
 *   a constraint now ties to `state = 'pending'`), per endpoint in due order: the
 *   claim takes each active endpoint's first due ones from it, and the next due time is read from
 *   its head. A delivered or dead delivery leaves it. It replaces `deliveries_due` (every pending
 *   delivery in one due order, which made the claim rank the whole backlog) and
 *   `deliveries_endpoint_leased` (no statement reads it since the worker counts its own attempts
 *   in flight); without an index on `lease_until`, the claim's lease is an update that PostgreSQL
 *   can make in place (a HOT update), adding nothing to any index. Its condition is
 *   `next_attempt_at IS NOT NULL` rather than `state = 'pending'` for PGlite, which plans without
 *   statistics: it takes `state = 'pending'` to hold for 1 row in 200, and with so few rows
 *   expected it read an endpoint's whole backlog and sorted it rather than take its first rows
 *   from the index; a comparison of `next_attempt_at` it takes to hold for a third.
 * - `outbox_events.fan_out_to`: the endpoints that take an event, decided once, as it is written
 *   (`outboxEventPart`), and kept until the fan-out has made their deliveries (then `NULL`, with
 *   `dispatched_at` set): the fan-out carries the decision out without making it again. Events
 *   still pending from before get the endpoints the fan-out of the previous release would have
 *   chosen.
 * - `outbox_events_fan_out`, the events the fan-out has still to do, in order, replaces
 *   `outbox_events_pending`: the same rows, but under a condition (`fan_out_to IS NOT NULL`)
 *   that PGlite, planning without statistics, takes to hold for many rows, so that it reads the
 *   first events from the index at any size. Under `dispatched_at IS NULL`, which it takes to
 *   hold for 1 row in 200, it read every pending event and sorted them once the outbox held a
 *   few tens of thousands.
 */
export const deliveryHotPaths = `
UPDATE deliveries SET next_attempt_at = NULL
 WHERE state <> 'pending' AND next_attempt_at IS NOT NULL;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_pending_has_next_attempt
  CHECK ((state = 'pending') = (next_attempt_at IS NOT NULL)) NOT VALID;
CREATE INDEX deliveries_endpoint_due ON deliveries (endpoint_id, next_attempt_at, id)
  WHERE next_attempt_at IS NOT NULL;
DROP INDEX deliveries_due;
DROP INDEX deliveries_endpoint_leased;

ALTER TABLE outbox_events ADD COLUMN fan_out_to text[];
UPDATE outbox_events AS event
   SET fan_out_to = ARRAY(
         SELECT endpoint.id FROM webhook_endpoints AS endpoint
          WHERE endpoint.state = 'active'
            AND (event.event = ANY (endpoint.events) OR '*' = ANY (endpoint.events))
            AND endpoint.created_at <= event.created_at
          ORDER BY endpoint.created_at, endpoint.id)
 WHERE event.dispatched_at IS NULL;
CREATE INDEX outbox_events_fan_out ON outbox_events (seq) WHERE fan_out_to IS NOT NULL;
DROP INDEX outbox_events_pending;
`;

/**
 * @internal On PostgreSQL only: autovacuum and autoanalyze of the two tables every delivery
 * rewrites. Each delivery is inserted, leased and finished (three row versions), and each event
 * written and marked dispatched; at the default thresholds (a fifth of the table dead) a table of
 * millions of finished rows waits for hundreds of thousands of dead versions before a vacuum,
 * and the index entries of finished deliveries, and the pending rows' old versions, pile up in
 * what the claim and the fan-out read. Here a vacuum comes after 1 % of the table (and 1,000
 * rows) changed or was inserted, an analyze after 2 %, so that the statistics follow a backlog
 * as it forms and drains. PGlite runs no autovacuum (nor any vacuum or analyze by itself): there
 * the statements are written to read the same few index entries with or without vacuum and
 * statistics (see `deliveryHotPaths`).
 */
export const deliveryAutovacuum = `
ALTER TABLE deliveries SET (
  autovacuum_vacuum_scale_factor = 0.01,
  autovacuum_vacuum_threshold = 1000,
  autovacuum_vacuum_insert_scale_factor = 0.01,
  autovacuum_vacuum_insert_threshold = 1000,
  autovacuum_analyze_scale_factor = 0.02,
  autovacuum_analyze_threshold = 1000
);
ALTER TABLE outbox_events SET (
  autovacuum_vacuum_scale_factor = 0.01,
  autovacuum_vacuum_threshold = 1000,
  autovacuum_vacuum_insert_scale_factor = 0.01,
  autovacuum_vacuum_insert_threshold = 1000,
  autovacuum_analyze_scale_factor = 0.02,
  autovacuum_analyze_threshold = 1000
);
`;

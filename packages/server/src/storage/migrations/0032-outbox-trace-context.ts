/**
 * @internal The trace context of the request that wrote an outbox event (its span's W3C
 * `traceparent`), so that the event's delivery attempts are spans of the same trace: a row only
 * when traces were on and a span was active. Never sent in a webhook body or the event feed.
 *
 * A table of its own rather than a column of `outbox_events`: a `text` column widens that table's
 * estimated row, and on a table never analyzed (PGlite never analyzes; PostgreSQL not before
 * autovacuum's first run) the planner then expects so few rows per page that it reads a small
 * outbox whole and sorts it instead of taking the fan-out's head of `outbox_events_fan_out`. The
 * claim reads it by primary key, and the row goes with its event (`ON DELETE CASCADE`) when
 * retention prunes it. It holds ids only, nothing a contact's erasure has to touch.
 */
export const outboxTraceContext = `
CREATE TABLE outbox_trace_contexts (
  event_id    text PRIMARY KEY REFERENCES outbox_events (id) ON DELETE CASCADE,
  traceparent text NOT NULL
);
`;

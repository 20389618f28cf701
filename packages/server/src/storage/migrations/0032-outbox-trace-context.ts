/**
 * @internal The trace context of the request that wrote an outbox event (its span's W3C
 * `traceparent`), so that the event's delivery attempts are spans of the same trace; `NULL` when
 * traces are off or no span was active. Never sent in a webhook body or the event feed.
 */
export const outboxTraceContext = `
ALTER TABLE outbox_events ADD COLUMN trace_context text;
`;

/**
 * @internal The index behind the console's figures of recent delivery attempts
 * (`stores/overview-store.ts`: the Overview's attempts per hour and its endpoints' last 24 hours;
 * `stores/endpoint-attempt-stats-store.ts`: an endpoint page's), which read the attempts started
 * in a window of time: `started_at >= … AND started_at < …`. Without it each read scanned every
 * attempt kept (30 days of them by default), so a page cost the whole history; with it a page
 * costs the attempts of its window. A B-tree, not BRIN: pruning frees the oldest pages, which
 * PostgreSQL then fills with new attempts, and a BRIN range only ever widens.
 */
export const deliveryAttemptsByStart = `
CREATE INDEX delivery_attempts_started_at ON delivery_attempts (started_at);
`;

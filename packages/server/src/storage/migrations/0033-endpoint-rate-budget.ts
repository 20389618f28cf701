/**
 * @internal Each rate-limited endpoint's budget of deliveries, a token bucket shared by every
 * server instance: `rate_tokens` deliveries may start at `rate_refilled_at`, and the budget
 * grows by `rate_limit` a second up to twice that (the burst). `NULL` is a full bucket. The
 * claim (`stores/delivery-claim-store.ts`) refills it to the claim's time, takes at most what it
 * holds, and writes what is left, under the endpoint row's lock: two instances never spend the
 * same tokens. No index covers these columns, so the write is a HOT update on PostgreSQL.
 */
export const endpointRateBudget = `
ALTER TABLE webhook_endpoints ADD COLUMN rate_tokens double precision;
ALTER TABLE webhook_endpoints ADD COLUMN rate_refilled_at timestamptz;
`;

/**
 * @internal A reservation of an idempotency key is held by its request (`holder`, random) under
 * a lease the running request renews, instead of being given up at a fixed age: a request that
 * runs long keeps its key, and a request whose process died loses it once the lease runs out.
 */
export const idempotencyLease = `
ALTER TABLE idempotency_keys ADD COLUMN holder text;
ALTER TABLE idempotency_keys ADD COLUMN lease_expires_at timestamptz;
`;

/**
 * @internal An idempotency key is reserved (status NULL) before its request runs and completed
 * with the response afterwards, so that a concurrent retry sees the reservation; the response's
 * content type is kept to replay it exactly.
 */
export const idempotencyPending = `
ALTER TABLE idempotency_keys ALTER COLUMN status DROP NOT NULL;
ALTER TABLE idempotency_keys ALTER COLUMN response_body DROP NOT NULL;
ALTER TABLE idempotency_keys ADD COLUMN response_type text;
`;

/**
 * @internal Delivery hygiene: the first 4 KiB of each attempt's answer, and each endpoint's
 * health (since when every attempt has failed, and why it was disabled when the server did it).
 */
export const deliveryHygiene = `
ALTER TABLE delivery_attempts ADD COLUMN response_excerpt bytea;
ALTER TABLE webhook_endpoints ADD COLUMN failing_since timestamptz;
ALTER TABLE webhook_endpoints ADD COLUMN disabled_reason text;
CREATE INDEX deliveries_endpoint_leased ON deliveries (endpoint_id) WHERE lease_until IS NOT NULL;
`;

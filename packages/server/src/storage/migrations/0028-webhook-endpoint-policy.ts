/**
 * @internal The webhook API's endpoint fields: a description, the subscriber it belongs to (the
 * portal's key), static headers, a rate limit, an attempt timeout and the payload kind, each
 * bounded as `WEBHOOK_ENDPOINT_LIMITS` of the SDK says (the API validates them first; the checks
 * keep any other writer to the same bounds). The list index serves `GET /api/webhook-endpoints`
 * filtered by subscriber.
 */
export const webhookEndpointPolicy = `
ALTER TABLE webhook_endpoints ADD COLUMN description text;
ALTER TABLE webhook_endpoints ADD COLUMN subscriber text
  CHECK (subscriber ~ '^[a-z0-9_-]{1,64}$');
ALTER TABLE webhook_endpoints ADD COLUMN headers jsonb NOT NULL DEFAULT '{}'
  CHECK (jsonb_typeof(headers) = 'object');
ALTER TABLE webhook_endpoints ADD COLUMN rate_limit integer
  CHECK (rate_limit BETWEEN 1 AND 1000);
ALTER TABLE webhook_endpoints ADD COLUMN timeout_seconds integer NOT NULL DEFAULT 15
  CHECK (timeout_seconds BETWEEN 1 AND 30);
ALTER TABLE webhook_endpoints ADD COLUMN payload text NOT NULL DEFAULT 'full'
  CHECK (payload IN ('full', 'thin'));
CREATE INDEX webhook_endpoints_subscriber ON webhook_endpoints (subscriber, created_at, id)
  WHERE subscriber IS NOT NULL;
`;

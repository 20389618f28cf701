/**
 * @internal Outbound webhook delivery: the endpoints the operator subscribes, one delivery per
 * (event, endpoint), and every attempt made.
 *
 * Signing secrets are stored as they are: they are HMAC keys the server signs with, not
 * credentials it verifies, so a hash of them would be of no use.
 */
export const outboundDelivery = `
CREATE TABLE webhook_endpoints (
  id text PRIMARY KEY,
  url text NOT NULL,
  events text[] NOT NULL,
  state text NOT NULL CHECK (state IN ('active', 'disabled')),
  secret text NOT NULL,
  previous_secret text,
  previous_secret_until timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX webhook_endpoints_created_at_id ON webhook_endpoints (created_at, id);

-- One delivery per event and endpoint; lease_until is set while a worker holds it, and a lease
-- that ran out (a killed process) makes it due again.
CREATE TABLE deliveries (
  id text PRIMARY KEY,
  event_id text NOT NULL REFERENCES outbox_events (id) ON DELETE CASCADE,
  endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  state text NOT NULL CHECK (state IN ('pending', 'delivered', 'dead')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  lease_until timestamptz,
  last_status integer,
  last_error text,
  created_at timestamptz NOT NULL,
  delivered_at timestamptz,
  UNIQUE (event_id, endpoint_id)
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at, id) WHERE state = 'pending';
CREATE INDEX deliveries_created_at_id ON deliveries (created_at, id);
CREATE INDEX deliveries_endpoint_id ON deliveries (endpoint_id);

-- Every attempt: when, how long, the status or a short error code; never a secret or a body.
CREATE TABLE delivery_attempts (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id text NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
  started_at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  status integer,
  error text
);
CREATE INDEX delivery_attempts_delivery_id ON delivery_attempts (delivery_id, seq);
`;

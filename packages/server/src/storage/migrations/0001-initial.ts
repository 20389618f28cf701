/** @internal The first schema: the resources of docs/api-contract.md, and the outbox seam. */
export const initialSchema = `
CREATE TABLE service_accounts (
  id text PRIMARY KEY,
  name text NOT NULL,
  role text NOT NULL CHECK (role IN ('ADMIN', 'MANAGER', 'AGENT', 'READONLY')),
  created_at timestamptz NOT NULL
);

-- Only the SHA-256 of a token's secret is stored, never the secret or the token.
CREATE TABLE tokens (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES service_accounts (id) ON DELETE CASCADE,
  secret_sha256 bytea NOT NULL CHECK (octet_length(secret_sha256) = 32),
  created_at timestamptz NOT NULL,
  expires_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX tokens_account_id ON tokens (account_id);

CREATE TABLE contacts (
  id text PRIMARY KEY,
  first_name text NOT NULL,
  last_name text NOT NULL,
  lifecycle text NOT NULL,
  email text,
  phone text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX contacts_created_at_id ON contacts (created_at, id);

CREATE TABLE deals (
  id text PRIMARY KEY,
  contact_id text NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
  title text NOT NULL,
  stage text NOT NULL,
  amount_cents bigint NOT NULL,
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX deals_created_at_id ON deals (created_at, id);
CREATE INDEX deals_contact_id ON deals (contact_id);

CREATE TABLE sequences (
  id text PRIMARY KEY,
  name text NOT NULL,
  status text NOT NULL,
  steps jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX sequences_created_at_id ON sequences (created_at, id);

CREATE TABLE campaigns (
  id text PRIMARY KEY,
  name text NOT NULL,
  status text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX campaigns_created_at_id ON campaigns (created_at, id);

CREATE TABLE users (
  id text PRIMARY KEY,
  email text NOT NULL UNIQUE,
  name text NOT NULL,
  role text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX users_created_at_id ON users (created_at, id);

CREATE TABLE messages (
  id text PRIMARY KEY,
  sender text NOT NULL,
  subject text NOT NULL,
  text text,
  received_at timestamptz NOT NULL
);
CREATE INDEX messages_received_at_id ON messages (received_at, id);

-- One row per inbound EHR request, bad signatures included, written before the response.
CREATE TABLE ehr_receipts (
  id text PRIMARY KEY,
  vendor text NOT NULL,
  verdict text NOT NULL,
  raw_body bytea NOT NULL,
  headers jsonb NOT NULL,
  received_at timestamptz NOT NULL,
  handled_at timestamptz,
  handler_error text
);
CREATE INDEX ehr_receipts_received_at_id ON ehr_receipts (received_at, id);

-- seq is the walk order of the audit cursor; writers serialize on an advisory lock so that seq
-- order is also commit order, and a cursor never passes an entry that commits later.
CREATE TABLE audit_entries (
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  id text PRIMARY KEY,
  occurred_at timestamptz NOT NULL,
  action text NOT NULL,
  actor_type text NOT NULL CHECK (actor_type IN ('service_account', 'operator', 'system')),
  actor_id text,
  target_type text NOT NULL,
  target_id text NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}'
);

CREATE TABLE idempotency_keys (
  account_id text NOT NULL,
  key text NOT NULL,
  method text NOT NULL,
  path text NOT NULL,
  request_sha256 bytea NOT NULL,
  status integer NOT NULL,
  response_body text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);

-- The transactional outbox: an event row is written in the same transaction as the change it
-- announces; outbound delivery (a later release) claims rows with FOR UPDATE SKIP LOCKED.
CREATE TABLE outbox_events (
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  id text PRIMARY KEY,
  event text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  dispatched_at timestamptz
);
CREATE INDEX outbox_events_pending ON outbox_events (seq) WHERE dispatched_at IS NULL;
`;

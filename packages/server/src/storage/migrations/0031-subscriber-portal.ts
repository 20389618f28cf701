/**
 * @internal The subscriber portal: one-time links an administrator makes for a subscriber, the
 * portal sessions they start, and `portal` as an audit actor (its `actor_id` is the subscriber
 * key). As with sign-in links and sessions, only the SHA-256 of a link's token and of a session's
 * cookie value is stored.
 */
export const subscriberPortal = `
ALTER TABLE audit_entries DROP CONSTRAINT audit_entries_actor_type_check;
ALTER TABLE audit_entries ADD CONSTRAINT audit_entries_actor_type_check
  CHECK (actor_type IN ('service_account', 'operator', 'system', 'user', 'portal'));

-- Single use (used_at), valid until expires_at.
CREATE TABLE portal_links (
  id text PRIMARY KEY,
  subscriber text NOT NULL CHECK (subscriber ~ '^[a-z0-9_-]{1,64}$'),
  token_sha256 bytea NOT NULL UNIQUE CHECK (octet_length(token_sha256) = 32),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX portal_links_expires_at ON portal_links (expires_at);

-- One row per portal session, for its absolute lifetime; its CSRF tokens are made with csrf_secret.
CREATE TABLE portal_sessions (
  id text PRIMARY KEY,
  subscriber text NOT NULL CHECK (subscriber ~ '^[a-z0-9_-]{1,64}$'),
  link_id text NOT NULL,
  cookie_sha256 bytea NOT NULL UNIQUE CHECK (octet_length(cookie_sha256) = 32),
  csrf_secret text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX portal_sessions_expires_at ON portal_sessions (expires_at);
`;

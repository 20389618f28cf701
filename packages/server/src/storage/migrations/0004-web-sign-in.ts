/**
 * @internal People signing in to the web application: a user's password hash and disabled
 * state, one-time sign-in links, server-side sessions, the sign-in throttle, and `user` as an
 * audit actor.
 *
 * Only SHA-256 hashes of link tokens and session ids are stored; a password only as its
 * argon2id hash (a PHC string).
 */
export const webSignIn = `
ALTER TABLE users ADD COLUMN password_hash text;
ALTER TABLE users ADD COLUMN disabled_at timestamptz;

ALTER TABLE audit_entries DROP CONSTRAINT audit_entries_actor_type_check;
ALTER TABLE audit_entries ADD CONSTRAINT audit_entries_actor_type_check
  CHECK (actor_type IN ('service_account', 'operator', 'system', 'user'));

-- Invites and sign-in links: single use (used_at), valid until expires_at.
CREATE TABLE sign_in_links (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_sha256 bytea NOT NULL UNIQUE CHECK (octet_length(token_sha256) = 32),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX sign_in_links_user_id ON sign_in_links (user_id);
CREATE INDEX sign_in_links_expires_at ON sign_in_links (expires_at);

-- One row per session. Rotation moves the current id's hash to previous_sha256, which stays
-- valid until previous_valid_until (a few seconds of grace for parallel requests).
CREATE TABLE sessions (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  current_sha256 bytea NOT NULL UNIQUE CHECK (octet_length(current_sha256) = 32),
  previous_sha256 bytea UNIQUE CHECK (octet_length(previous_sha256) = 32),
  previous_valid_until timestamptz,
  csrf_secret text NOT NULL,
  created_at timestamptz NOT NULL,
  rotated_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX sessions_user_id ON sessions (user_id);
CREATE INDEX sessions_expires_at ON sessions (expires_at);

-- Failed sign-ins per key (an account's e-mail or a client address) in a fixed window.
CREATE TABLE sign_in_failures (
  key text PRIMARY KEY,
  failures integer NOT NULL,
  window_started_at timestamptz NOT NULL,
  reported boolean NOT NULL DEFAULT false
);
CREATE INDEX sign_in_failures_window_started_at ON sign_in_failures (window_started_at);
`;

/**
 * @internal One-time messages of the web application (a token or a signing secret shown once
 * after a post/redirect/get). Only ciphertext is stored: its key travels in the browser's flash
 * cookie, so the database alone never holds a readable secret; a row is deleted when read.
 */
export const webFlashes = `
CREATE TABLE web_flashes (
  id text PRIMARY KEY,
  session_id text NOT NULL,
  ciphertext bytea NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX web_flashes_expires_at ON web_flashes (expires_at);
`;

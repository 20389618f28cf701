import type { Queryable } from '../storage/database.js';

// The subscriber portal's tables: one-time links (`portal_links`) and the sessions they start
// (`portal_sessions`), stored by the SHA-256 of their secrets only; and the portal's one read of
// another family, a replay's endpoint, to keep a session to its own subscriber's replays.

/** @internal Inserts a portal link; the database keeps the SHA-256 of its token only. */
export async function insertPortalLink(
  queryable: Queryable,
  link: { id: string; subscriber: string; tokenSha256: Buffer; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await queryable.query(
    `INSERT INTO portal_links (id, subscriber, token_sha256, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5)`,
    [link.id, link.subscriber, link.tokenSha256, link.createdAt, link.expiresAt],
  );
}

/** @internal A usable portal link as stored. */
export interface PortalLinkRow {
  id: string;
  subscriber: string;
  token_sha256: Buffer;
}

/**
 * @internal The unused, unexpired link with this token digest; `undefined` when none. With
 * `consume`, the link is used up by the same statement, so that of concurrent uses one finds it.
 */
export async function findUsablePortalLinkRow(
  queryable: Queryable,
  options: { tokenSha256: Buffer; now: Date; consume: boolean },
): Promise<PortalLinkRow | undefined> {
  const { rows } = await queryable.query<PortalLinkRow>(
    options.consume
      ? `UPDATE portal_links SET used_at = $2
          WHERE token_sha256 = $1 AND used_at IS NULL AND expires_at > $2
          RETURNING id, subscriber, token_sha256`
      : `SELECT id, subscriber, token_sha256 FROM portal_links
          WHERE token_sha256 = $1 AND used_at IS NULL AND expires_at > $2`,
    [options.tokenSha256, options.now],
  );
  return rows[0];
}

/** @internal Inserts a portal session; the database keeps the SHA-256 of its cookie only. */
export async function insertPortalSession(
  queryable: Queryable,
  session: {
    id: string;
    subscriber: string;
    linkId: string;
    cookieSha256: Buffer;
    csrfSecret: string;
    createdAt: Date;
    expiresAt: Date;
  },
): Promise<void> {
  await queryable.query(
    `INSERT INTO portal_sessions
       (id, subscriber, link_id, cookie_sha256, csrf_secret, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      session.id,
      session.subscriber,
      session.linkId,
      session.cookieSha256,
      session.csrfSecret,
      session.createdAt,
      session.expiresAt,
    ],
  );
}

/** @internal An unexpired portal session as stored. */
export interface PortalSessionRow {
  id: string;
  subscriber: string;
  cookie_sha256: Buffer;
  csrf_secret: string;
  expires_at: string;
}

/** @internal The unexpired portal session with this cookie digest, or `undefined`. */
export async function findPortalSessionRow(
  queryable: Queryable,
  options: { cookieSha256: Buffer; now: Date },
): Promise<PortalSessionRow | undefined> {
  const { rows } = await queryable.query<PortalSessionRow>(
    `SELECT id, subscriber, cookie_sha256, csrf_secret, expires_at FROM portal_sessions
      WHERE cookie_sha256 = $1 AND expires_at > $2`,
    [options.cookieSha256, options.now],
  );
  return rows[0];
}

/** @internal Ends the portal session with this cookie digest; answers whether one ended. */
export async function deletePortalSession(
  queryable: Queryable,
  cookieSha256: Buffer,
): Promise<boolean> {
  const { rowCount } = await queryable.query(
    'DELETE FROM portal_sessions WHERE cookie_sha256 = $1',
    [cookieSha256],
  );
  return rowCount > 0;
}

/** @internal Deletes used or expired portal links and expired portal sessions; answers how many. */
export async function deleteSpentPortalRecords(
  queryable: Queryable,
  now: Date,
): Promise<{ links: number; sessions: number }> {
  const links = await queryable.query(
    'DELETE FROM portal_links WHERE used_at IS NOT NULL OR expires_at <= $1',
    [now],
  );
  const sessions = await queryable.query('DELETE FROM portal_sessions WHERE expires_at <= $1', [
    now,
  ]);
  return { links: links.rowCount, sessions: sessions.rowCount };
}

/** @internal The endpoint a replay sends to, or `undefined` when no replay has this id. */
export async function findReplayEndpointId(
  queryable: Queryable,
  replayId: string,
): Promise<string | undefined> {
  const { rows } = await queryable.query<{ endpoint_id: string }>(
    'SELECT endpoint_id FROM webhook_replays WHERE id = $1',
    [replayId],
  );
  return rows[0]?.endpoint_id;
}

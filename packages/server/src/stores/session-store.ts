import type { Queryable } from '../storage/database.js';
import type { StoredRole } from './service-account-store.js';

/**
 * @internal A session with its user, as a cookie's digest finds it: `is_current` says whether
 * the digest is the session's current one (not the previous one, still in its grace period).
 */
export interface SessionRow {
  id: string;
  user_id: string;
  is_current: boolean;
  csrf_secret: string;
  created_at: string;
  rotated_at: string;
  last_seen_at: string;
  expires_at: string;
  email: string;
  name: string;
  role: StoredRole;
}

/** @internal Inserts a session; the database keeps the SHA-256 of its cookie's value only. */
export async function insertSession(
  queryable: Queryable,
  session: {
    id: string;
    userId: string;
    cookieSha256: Buffer;
    csrfSecret: string;
    now: Date;
    expiresAt: Date;
  },
): Promise<void> {
  await queryable.query(
    `INSERT INTO sessions (id, user_id, current_sha256, csrf_secret, created_at, rotated_at,
                               last_seen_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $5, $5, $6)`,
    [
      session.id,
      session.userId,
      session.cookieSha256,
      session.csrfSecret,
      session.now,
      session.expiresAt,
    ],
  );
}

/**
 * @internal The session whose current digest is `digest`, or whose previous one is and still in
 * its grace period at `now`, with its user; `undefined` when none, or when its user is disabled.
 */
export async function findSessionByDigest(
  queryable: Queryable,
  options: { digest: Buffer; now: number },
): Promise<SessionRow | undefined> {
  const { rows } = await queryable.query<SessionRow>(
    `SELECT s.id, s.user_id, s.current_sha256 = $1 AS is_current, s.csrf_secret,
                s.created_at, s.rotated_at, s.last_seen_at, s.expires_at,
                u.email, u.name, u.role
           FROM sessions s JOIN users u ON u.id = s.user_id
          WHERE (s.current_sha256 = $1 OR (s.previous_sha256 = $1 AND s.previous_valid_until > $2))
            AND u.disabled_at IS NULL`,
    [options.digest, new Date(options.now)],
  );
  return rows[0];
}

/**
 * @internal Gives a session a new id digest, keeping the current one valid until `graceUntil`:
 * only while `currentDigest` is still the current one, so that of parallel requests holding the
 * same id, one rotates. Answers whether this call rotated it.
 */
export async function rotateSessionDigest(
  queryable: Queryable,
  options: {
    sessionId: string;
    currentDigest: Buffer;
    graceUntil: number;
    nextDigest: Buffer;
    now: number;
  },
): Promise<boolean> {
  const rotated = await queryable.query(
    `UPDATE sessions SET previous_sha256 = current_sha256, previous_valid_until = $3,
                  current_sha256 = $4, rotated_at = $5, last_seen_at = $5
            WHERE id = $1 AND current_sha256 = $2`,
    [
      options.sessionId,
      options.currentDigest,
      new Date(options.graceUntil),
      options.nextDigest,
      new Date(options.now),
    ],
  );
  return rotated.rowCount === 1;
}

/** @internal Records that a session was used at `now`. */
export async function touchSession(
  queryable: Queryable,
  options: { sessionId: string; now: number },
): Promise<void> {
  await queryable.query('UPDATE sessions SET last_seen_at = $2 WHERE id = $1', [
    options.sessionId,
    new Date(options.now),
  ]);
}

/** @internal Deletes the session with this current or previous digest; answers its id and user. */
export async function deleteSessionByDigest(
  queryable: Queryable,
  digest: Buffer,
): Promise<{ id: string; user_id: string } | undefined> {
  const { rows } = await queryable.query<{ id: string; user_id: string }>(
    `DELETE FROM sessions WHERE current_sha256 = $1 OR previous_sha256 = $1
         RETURNING id, user_id`,
    [digest],
  );
  return rows[0];
}

/** @internal Deletes every session of a user; answers how many. */
export async function deleteSessionsOfUser(queryable: Queryable, userId: string): Promise<number> {
  const { rowCount } = await queryable.query('DELETE FROM sessions WHERE user_id = $1', [userId]);
  return rowCount;
}

/**
 * @internal Deletes the sessions past their absolute lifetime at `now` or last seen at or before
 * `idleSince`; answers how many.
 */
export async function deleteExpiredSessions(
  queryable: Queryable,
  options: { now: Date; idleSince: Date },
): Promise<number> {
  const sessions = await queryable.query(
    'DELETE FROM sessions WHERE expires_at <= $1 OR last_seen_at <= $2',
    [options.now, options.idleSince],
  );
  return sessions.rowCount;
}

import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { Queryable } from '../storage/database.js';
import { newSecret, secretDigest } from './sessions.js';

/** How long a sign-in link (an invite) stays valid: 24 hours. */
export const SIGN_IN_LINK_LIFETIME_MS = 24 * 60 * 60 * 1000;

const linkTokenPattern = /^[A-Za-z0-9_-]{43}$/;

/** @internal A new sign-in link: the token (in the URL, shown once) and when it expires. */
export interface NewSignInLink {
  id: string;
  token: string;
  expiresAt: string;
}

/**
 * @internal Makes a one-time sign-in link for a user. Only the token's SHA-256 is stored; the
 * token itself is in the answer and nowhere else.
 */
export async function createSignInLink(
  queryable: Queryable,
  userId: string,
  dependencies: { clock: Clock; newId: IdGenerator },
): Promise<NewSignInLink> {
  const id = dependencies.newId('lnk');
  const token = newSecret();
  const now = dependencies.clock.now();
  const expiresAt = new Date(now + SIGN_IN_LINK_LIFETIME_MS);
  await queryable.query(
    `INSERT INTO sign_in_links (id, user_id, token_sha256, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5)`,
    [id, userId, secretDigest(token), new Date(now), expiresAt],
  );
  return { id, token, expiresAt: expiresAt.toISOString() };
}

/** @internal The user a usable link belongs to; `undefined` for a used, expired or unknown one. */
export async function findUsableSignInLink(
  queryable: Queryable,
  token: string,
  clock: Clock,
  options: { consume?: boolean } = {},
): Promise<{ linkId: string; userId: string; email: string } | undefined> {
  if (!linkTokenPattern.test(token)) return undefined;
  const { rows } = await queryable.query<{ id: string; user_id: string; email: string }>(
    options.consume
      ? `UPDATE sign_in_links l SET used_at = $2 FROM users u
          WHERE l.token_sha256 = $1 AND l.used_at IS NULL AND l.expires_at > $2
            AND u.id = l.user_id AND u.disabled_at IS NULL
          RETURNING l.id, l.user_id, u.email`
      : `SELECT l.id, l.user_id, u.email FROM sign_in_links l JOIN users u ON u.id = l.user_id
          WHERE l.token_sha256 = $1 AND l.used_at IS NULL AND l.expires_at > $2
            AND u.disabled_at IS NULL`,
    [secretDigest(token), new Date(clock.now())],
  );
  const row = rows[0];
  return row ? { linkId: row.id, userId: row.user_id, email: row.email } : undefined;
}

/** What {@link pruneSignInRecords} deleted. */
export interface PrunedSignInRecords {
  /** Sessions past their absolute lifetime or idle too long. */
  sessions: number;
  /** Used or expired sign-in links. */
  links: number;
  /** Sign-in failure windows that ended. */
  failures: number;
}

/** Options of {@link pruneSignInRecords}. */
export interface PruneSignInRecordsOptions {
  /** The current time, milliseconds since the epoch (from the injected clock). */
  now: number;
  /** The sessions' idle timeout; default 30 minutes (use the server's if configured). */
  idleTimeoutMs?: number;
  /** The sign-in throttle's window; default 15 minutes. */
  throttleWindowMs?: number;
}

/**
 * Deletes what sign-in no longer needs: expired sessions (past their absolute lifetime or idle
 * too long), used or expired sign-in links, and sign-in failure windows that ended. The retention
 * schedule and `followup-server prune` call it. Answers how many rows of each went.
 *
 * @example
 * ```ts
 * await pruneSignInRecords(database, { now: Date.now() });
 * ```
 */
export async function pruneSignInRecords(
  queryable: Queryable,
  options: PruneSignInRecordsOptions,
): Promise<PrunedSignInRecords> {
  const now = new Date(options.now);
  const idle = options.idleTimeoutMs ?? 30 * 60 * 1000;
  const window = options.throttleWindowMs ?? 15 * 60 * 1000;
  const sessions = await queryable.query(
    'DELETE FROM sessions WHERE expires_at <= $1 OR last_seen_at <= $2',
    [now, new Date(options.now - idle)],
  );
  const links = await queryable.query(
    'DELETE FROM sign_in_links WHERE used_at IS NOT NULL OR expires_at <= $1',
    [now],
  );
  const failures = await queryable.query(
    'DELETE FROM sign_in_failures WHERE window_started_at <= $1',
    [new Date(options.now - window)],
  );
  return { sessions: sessions.rowCount, links: links.rowCount, failures: failures.rowCount };
}

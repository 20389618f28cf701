import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { Queryable } from '../storage/database.js';
import { deleteExpiredSessions } from '../stores/session-store.js';
import { deleteEndedFailureWindows } from '../stores/sign-in-failure-store.js';
import {
  deleteSpentSignInLinks,
  findUsableSignInLinkRow,
  insertSignInLink,
} from '../stores/sign-in-link-store.js';
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
  await insertSignInLink(queryable, {
    id,
    userId,
    tokenSha256: secretDigest(token),
    createdAt: new Date(now),
    expiresAt,
  });
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
  const row = await findUsableSignInLinkRow(queryable, {
    tokenSha256: secretDigest(token),
    now: clock.now(),
    consume: options.consume ?? false,
  });
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
  const sessions = await deleteExpiredSessions(queryable, {
    now,
    idleSince: new Date(options.now - idle),
  });
  const links = await deleteSpentSignInLinks(queryable, now);
  const failures = await deleteEndedFailureWindows(queryable, new Date(options.now - window));
  return { sessions, links, failures };
}

import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { Database, Queryable } from '../storage/database.js';
import type { Role } from '../tokens/role.js';

/** How long sessions live and how often their id changes. Every value in milliseconds. */
export interface SessionPolicy {
  /** A session unused this long ends. Default 30 minutes. */
  idleTimeoutMs: number;
  /** A session ends this long after sign-in, however much it is used. Default 12 hours. */
  absoluteLifetimeMs: number;
  /** A session in use gets a new id once its id is this old. Default 15 minutes. */
  rotateAfterMs: number;
  /** After a rotation the old id still works this long, for requests already on their way. */
  rotationGraceMs: number;
}

/** The defaults: idle 30 min, absolute 12 h, a new id every 15 min of use, 10 s of grace. */
export const DEFAULT_SESSION_POLICY: Readonly<SessionPolicy> = {
  idleTimeoutMs: 30 * 60 * 1000,
  absoluteLifetimeMs: 12 * 60 * 60 * 1000,
  rotateAfterMs: 15 * 60 * 1000,
  rotationGraceMs: 10 * 1000,
};

// last_seen_at is written at most this often per session: one write per request would be waste.
const lastSeenResolutionMs = 30 * 1000;

/** A signed-in person, as pages and the `/api` routes see them. */
export interface SignedInUser {
  /** `usr_…` */
  id: string;
  /** The address they sign in with. */
  email: string;
  /** Their name, for people. */
  name: string;
  /** Gives their capabilities, with the same matrix as service accounts. */
  role: Role;
}

/** A session that a cookie presented is valid for. */
export interface ActiveSession {
  /** `ses_…`: stable across rotations; never a credential (the cookie's value is). */
  id: string;
  user: SignedInUser;
  /** The secret the session's CSRF tokens are made with. */
  csrfSecret: string;
  /**
   * Set when this request rotated the session: the new cookie value to send. The old value
   * stays valid for the grace period.
   */
  rotatedCookieValue?: string;
}

/** A new session, as sign-in makes it. */
export interface StartedSession {
  /** `ses_…` */
  id: string;
  /** The cookie's value: the only copy of the secret; the database keeps its hash. */
  cookieValue: string;
}

/** @internal Server-side sessions; see {@link createSessionStore}. */
export interface SessionStore {
  readonly policy: Readonly<SessionPolicy>;
  /** Starts a session for a user (sign-in): a new random id, never one the browser offered. */
  start(queryable: Queryable, userId: string): Promise<StartedSession>;
  /**
   * The session a cookie value stands for, or `undefined` when it is unknown, expired, idle too
   * long, or its user is disabled. Rotates the id when it is old enough.
   */
  resolve(cookieValue: string | undefined): Promise<ActiveSession | undefined>;
  /** Ends the session of a cookie value (sign out); answers its id and user, if it existed. */
  end(
    queryable: Queryable,
    cookieValue: string | undefined,
  ): Promise<{ id: string; userId: string } | undefined>;
}

/** @internal The SHA-256 of a session cookie's value or a link token: what the database keeps. */
export function secretDigest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** @internal A new random secret: 32 bytes, base64url (43 characters). */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

const cookieValuePattern = /^[A-Za-z0-9_-]{43}$/;

interface SessionRow {
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
  role: Role;
}

/**
 * @internal Makes the session store: sessions live in the database (so every instance sees the
 * same ones, and ending one takes effect at once everywhere); only the SHA-256 of a session id
 * is stored. Time comes from `clock`.
 */
export function createSessionStore(options: {
  database: Database;
  clock: Clock;
  newId: IdGenerator;
  policy?: Partial<SessionPolicy>;
}): SessionStore {
  const { database, clock, newId } = options;
  const policy: SessionPolicy = { ...DEFAULT_SESSION_POLICY, ...options.policy };

  return {
    policy,

    async start(queryable, userId) {
      const id = newId('ses');
      const cookieValue = newSecret();
      const now = new Date(clock.now());
      await queryable.query(
        `INSERT INTO sessions (id, user_id, current_sha256, csrf_secret, created_at, rotated_at,
                               last_seen_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $5, $5, $6)`,
        [
          id,
          userId,
          secretDigest(cookieValue),
          newSecret(),
          now,
          new Date(now.getTime() + policy.absoluteLifetimeMs),
        ],
      );
      return { id, cookieValue };
    },

    async resolve(cookieValue) {
      if (cookieValue === undefined || !cookieValuePattern.test(cookieValue)) return undefined;
      const digest = secretDigest(cookieValue);
      const now = clock.now();
      const { rows } = await database.query<SessionRow>(
        `SELECT s.id, s.user_id, s.current_sha256 = $1 AS is_current, s.csrf_secret,
                s.created_at, s.rotated_at, s.last_seen_at, s.expires_at,
                u.email, u.name, u.role
           FROM sessions s JOIN users u ON u.id = s.user_id
          WHERE (s.current_sha256 = $1 OR (s.previous_sha256 = $1 AND s.previous_valid_until > $2))
            AND u.disabled_at IS NULL`,
        [digest, new Date(now)],
      );
      const row = rows[0];
      if (!row) return undefined;
      if (Date.parse(row.expires_at) <= now) return undefined;
      if (Date.parse(row.last_seen_at) + policy.idleTimeoutMs <= now) return undefined;
      const session: ActiveSession = {
        id: row.id,
        user: { id: row.user_id, email: row.email, name: row.name, role: row.role },
        csrfSecret: row.csrf_secret,
      };
      if (row.is_current && Date.parse(row.rotated_at) + policy.rotateAfterMs <= now) {
        // Only the request that still holds the current id rotates; a parallel request with the
        // same id finds current_sha256 changed and keeps using the grace period.
        const next = newSecret();
        const rotated = await database.query(
          `UPDATE sessions SET previous_sha256 = current_sha256, previous_valid_until = $3,
                  current_sha256 = $4, rotated_at = $5, last_seen_at = $5
            WHERE id = $1 AND current_sha256 = $2`,
          [
            row.id,
            digest,
            new Date(now + policy.rotationGraceMs),
            secretDigest(next),
            new Date(now),
          ],
        );
        if (rotated.rowCount === 1) session.rotatedCookieValue = next;
      } else if (Date.parse(row.last_seen_at) + lastSeenResolutionMs <= now) {
        await database.query('UPDATE sessions SET last_seen_at = $2 WHERE id = $1', [
          row.id,
          new Date(now),
        ]);
      }
      return session;
    },

    async end(queryable, cookieValue) {
      if (cookieValue === undefined || !cookieValuePattern.test(cookieValue)) return undefined;
      const digest = secretDigest(cookieValue);
      const { rows } = await queryable.query<{ id: string; user_id: string }>(
        `DELETE FROM sessions WHERE current_sha256 = $1 OR previous_sha256 = $1
         RETURNING id, user_id`,
        [digest],
      );
      const row = rows[0];
      return row ? { id: row.id, userId: row.user_id } : undefined;
    },
  };
}

/**
 * Ends every session of a user at once (disable, role change, "revoke sessions"). Answers how
 * many ended. Pass the transaction of the change that calls for it.
 */
export async function endSessionsOfUser(queryable: Queryable, userId: string): Promise<number> {
  const { rowCount } = await queryable.query('DELETE FROM sessions WHERE user_id = $1', [userId]);
  return rowCount;
}

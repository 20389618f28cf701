import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { Database, Queryable } from '../storage/database.js';
import {
  deleteSessionByDigest,
  findSessionByDigest,
  insertSession,
  rotateSessionDigest,
  touchSession,
} from '../stores/session-store.js';
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
      await insertSession(queryable, {
        id,
        userId,
        cookieSha256: secretDigest(cookieValue),
        csrfSecret: newSecret(),
        now,
        expiresAt: new Date(now.getTime() + policy.absoluteLifetimeMs),
      });
      return { id, cookieValue };
    },

    async resolve(cookieValue) {
      if (cookieValue === undefined || !cookieValuePattern.test(cookieValue)) return undefined;
      const digest = secretDigest(cookieValue);
      const now = clock.now();
      const row = await findSessionByDigest(database, { digest, now });
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
        const rotated = await rotateSessionDigest(database, {
          sessionId: row.id,
          currentDigest: digest,
          graceUntil: now + policy.rotationGraceMs,
          nextDigest: secretDigest(next),
          now,
        });
        if (rotated) session.rotatedCookieValue = next;
      } else if (Date.parse(row.last_seen_at) + lastSeenResolutionMs <= now) {
        await touchSession(database, { sessionId: row.id, now });
      }
      return session;
    },

    async end(queryable, cookieValue) {
      if (cookieValue === undefined || !cookieValuePattern.test(cookieValue)) return undefined;
      const digest = secretDigest(cookieValue);
      const row = await deleteSessionByDigest(queryable, digest);
      return row ? { id: row.id, userId: row.user_id } : undefined;
    },
  };
}

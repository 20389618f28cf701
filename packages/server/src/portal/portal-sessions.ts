import { timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Queryable } from '../storage/database.js';
import { deletePortalSession, findPortalSessionRow } from '../stores/portal-store.js';
import { secretDigest } from '../users/sessions.js';

/** @internal The portal session a cookie stands for. */
export interface PortalSession {
  /** `pss_…`: stable, never a credential (the cookie's value is). */
  id: string;
  /** The subscriber it acts for: it sees and changes that subscriber's endpoints only. */
  subscriber: string;
  /** The secret its CSRF tokens are made with. */
  csrfSecret: string;
  /** When it ends, ISO 8601 UTC. */
  expiresAt: string;
}

const cookieValuePattern = /^[A-Za-z0-9_-]{43}$/;

/**
 * @internal The unexpired portal session of a cookie value, or `undefined`. Looked up by the
 * SHA-256 of the value, then compared in constant time.
 */
export async function resolvePortalSession(
  queryable: Queryable,
  cookieValue: string | undefined,
  clock: Clock,
): Promise<PortalSession | undefined> {
  if (cookieValue === undefined || !cookieValuePattern.test(cookieValue)) return undefined;
  const digest = secretDigest(cookieValue);
  const row = await findPortalSessionRow(queryable, {
    cookieSha256: digest,
    now: new Date(clock.now()),
  });
  const stored = row ? Buffer.from(row.cookie_sha256) : undefined;
  if (!row || !stored || stored.length !== digest.length || !timingSafeEqual(stored, digest)) {
    return undefined;
  }
  return {
    id: row.id,
    subscriber: row.subscriber,
    csrfSecret: row.csrf_secret,
    expiresAt: new Date(row.expires_at).toISOString(),
  };
}

/** @internal Ends the portal session of a cookie value (**Leave portal**). */
export async function endPortalSession(
  queryable: Queryable,
  cookieValue: string | undefined,
): Promise<void> {
  if (cookieValue === undefined || !cookieValuePattern.test(cookieValue)) return;
  await deletePortalSession(queryable, secretDigest(cookieValue));
}

import { timingSafeEqual } from 'node:crypto';
import { PORTAL_LINK_LIMITS, portalLinkInputSchema } from '@followup/sdk';
import { recordAuditEntry } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import { ProblemError } from '../problem-error.js';
import type { Database } from '../storage/database.js';
import type { AuditActor } from '../stores/audit-store.js';
import {
  findUsablePortalLinkRow,
  insertPortalLink,
  insertPortalSession,
  type PortalLinkRow,
} from '../stores/portal-store.js';
import { newSecret, secretDigest } from '../users/sessions.js';

/** @internal How long a portal session lasts, however much it is used: 8 hours. */
export const PORTAL_SESSION_LIFETIME_MS = PORTAL_LINK_LIMITS.sessionHours * 60 * 60 * 1000;

const linkTokenPattern = /^[A-Za-z0-9_-]{43}$/;

/** @internal A new portal link: the URL (its token shown this once) and when it expires. */
export interface NewPortalLink {
  /** `plk_…`: the link's id, in the audit log; never a credential. */
  id: string;
  /** `<public URL>/portal/link/<token>`. */
  url: string;
  /** ISO 8601 UTC. */
  expiresAt: string;
}

/** @internal What {@link createPortalLink} needs. */
export interface CreatePortalLinkOptions {
  /** The subscriber key the portal session acts for. */
  subscriber: string;
  /** Minutes the link stays usable (1 to 1,440); default 60. */
  expiresInMinutes?: number | undefined;
  /** The server's public origin: the link's base. */
  publicUrl: string;
  /** Who makes it, for the audit log. */
  actor: AuditActor;
  clock: Clock;
  newId: IdGenerator;
}

/**
 * @internal Makes a one-time link into the subscriber portal (the one action behind `POST
 * /api/webhook-portal/links`, the console's **Portal link** button and `followup-server endpoints
 * portal-link`): only the SHA-256 of its token is stored; audited as `portal_link.created`. A bad
 * subscriber or expiry is 400 `validation_failed` naming the field, whichever surface asked.
 */
export async function createPortalLink(
  database: Database,
  options: CreatePortalLinkOptions,
): Promise<NewPortalLink> {
  const parsed = portalLinkInputSchema.safeParse({
    subscriber: options.subscriber,
    ...(options.expiresInMinutes === undefined
      ? {}
      : { expiresInMinutes: options.expiresInMinutes }),
  });
  if (!parsed.success) {
    const errors = parsed.error.issues.map((issue) => ({
      path: issue.path.join('.'),
      message: issue.message,
    }));
    // The detail names the fields too: the operator command prints it alone.
    const named = errors.map((error) => `${error.path}: ${error.message}`).join('; ');
    throw new ProblemError({
      code: 'validation_failed',
      detail: `The request is not valid: ${named}.`,
      errors,
    });
  }
  const { subscriber } = parsed.data;
  const minutes = parsed.data.expiresInMinutes ?? PORTAL_LINK_LIMITS.defaultExpiresInMinutes;
  const { clock, newId } = options;
  const id = newId('plk');
  const token = newSecret();
  const now = clock.now();
  const expiresAt = new Date(now + minutes * 60_000);
  await database.transaction(async (transaction) => {
    await insertPortalLink(transaction, {
      id,
      subscriber,
      tokenSha256: secretDigest(token),
      createdAt: new Date(now),
      expiresAt,
    });
    await recordAuditEntry(
      transaction,
      {
        action: 'portal_link.created',
        actor: options.actor,
        target: { type: 'subscriber', id: subscriber },
        metadata: { linkId: id, expiresAt: expiresAt.toISOString() },
      },
      { clock, newId },
    );
  });
  return {
    id,
    url: `${options.publicUrl}/portal/link/${token}`,
    expiresAt: expiresAt.toISOString(),
  };
}

// The row was found by its digest; comparing the digests again in constant time costs nothing
// and keeps a database's index lookup from being the only check of a secret.
function sameDigest(row: PortalLinkRow | undefined, digest: Buffer): row is PortalLinkRow {
  const stored = row ? Buffer.from(row.token_sha256) : undefined;
  return stored !== undefined && stored.length === digest.length && timingSafeEqual(stored, digest);
}

/**
 * @internal The subscriber of a usable (unused, unexpired) portal link, without using it up:
 * what the confirmation page shows. `undefined` for any other token.
 */
export async function findUsablePortalLink(
  database: Database,
  token: string,
  clock: Clock,
): Promise<{ subscriber: string } | undefined> {
  if (!linkTokenPattern.test(token)) return undefined;
  const digest = secretDigest(token);
  const row = await findUsablePortalLinkRow(database, {
    tokenSha256: digest,
    now: new Date(clock.now()),
    consume: false,
  });
  return sameDigest(row, digest) ? { subscriber: row.subscriber } : undefined;
}

/** @internal A portal session just started: the cookie's value is its only copy. */
export interface StartedPortalSession {
  /** `pss_…` */
  id: string;
  subscriber: string;
  cookieValue: string;
  expiresAt: string;
}

/**
 * @internal Uses a portal link up and starts an 8-hour portal session for its subscriber, in one
 * transaction (of two concurrent uses one wins); audited as `portal_session.started` by the
 * portal actor. `undefined` for a used, expired or unknown link.
 */
export async function startPortalSession(
  database: Database,
  token: string,
  dependencies: { clock: Clock; newId: IdGenerator },
): Promise<StartedPortalSession | undefined> {
  if (!linkTokenPattern.test(token)) return undefined;
  const { clock, newId } = dependencies;
  const digest = secretDigest(token);
  return database.transaction(async (transaction) => {
    const now = clock.now();
    const link = await findUsablePortalLinkRow(transaction, {
      tokenSha256: digest,
      now: new Date(now),
      consume: true,
    });
    if (!sameDigest(link, digest)) return undefined;
    const id = newId('pss');
    const cookieValue = newSecret();
    const expiresAt = new Date(now + PORTAL_SESSION_LIFETIME_MS);
    await insertPortalSession(transaction, {
      id,
      subscriber: link.subscriber,
      linkId: link.id,
      cookieSha256: secretDigest(cookieValue),
      csrfSecret: newSecret(),
      createdAt: new Date(now),
      expiresAt,
    });
    await recordAuditEntry(
      transaction,
      {
        action: 'portal_session.started',
        actor: { type: 'portal', subscriber: link.subscriber },
        target: { type: 'subscriber', id: link.subscriber },
        metadata: { linkId: link.id, sessionId: id },
      },
      { clock, newId },
    );
    return { id, subscriber: link.subscriber, cookieValue, expiresAt: expiresAt.toISOString() };
  });
}

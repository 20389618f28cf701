import type { WebhookEndpoint } from '@followup/sdk';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { WebhookEndpointInfo } from '../delivery/webhook-endpoint-info.js';
import { FollowUpServerError } from '../errors.js';
import {
  cursorTimestamp,
  decodeListCursor,
  encodeListCursor,
  listFingerprint,
  positionOf,
} from '../list-cursor.js';
import { ProblemError } from '../problem-error.js';
import type { AuditActor } from '../stores/audit-store.js';
import { parseIsoTimestamp } from './keyset-list.js';

// What the webhook API's routes (webhook-endpoints.ts, deliveries.ts) share: the caller as the
// audit log's actor, the domain's errors as problems, the endpoint as the API shows it, and the
// cursors of their keyset lists.

/** @internal The caller of an authenticated route, as the audit log records it. */
export function actorOf(request: FastifyRequest): AuditActor {
  const principal = request.principal;
  if (!principal) throw new Error('A webhook route ran without an authenticated principal.');
  return principal.actor;
}

function invalid(path: string, message: string): ProblemError {
  return new ProblemError({
    code: 'validation_failed',
    detail: 'The request is not valid: see errors.',
    errors: [{ path, message }],
  });
}

/**
 * @internal The problem a domain error of `delivery/` is over HTTP: an unknown endpoint or
 * delivery is 404 `not_found`; a URL the address policy refuses 422 `invalid_endpoint_url`;
 * a test or a replay to a disabled endpoint and a retry of a delivered delivery 409 `conflict`;
 * a bad list of kinds, overlap or replay window 400 `validation_failed` naming the field. Anything else is rethrown.
 */
export function asProblem(error: unknown): unknown {
  if (!FollowUpServerError.isInstance(error) || error instanceof ProblemError) return error;
  switch (error.code) {
    case 'endpoint_not_found':
    case 'delivery_not_found':
      return new ProblemError({ code: 'not_found', detail: error.message });
    case 'invalid_endpoint_url':
      return new ProblemError({ code: 'invalid_endpoint_url', detail: error.message });
    case 'endpoint_disabled':
    case 'delivery_delivered':
      return new ProblemError({ code: 'conflict', detail: error.message });
    case 'invalid_events':
      return invalid('events', error.message);
    case 'invalid_overlap':
      return invalid('overlapSeconds', error.message);
    case 'invalid_replay_since':
      return invalid('since', error.message);
    case 'invalid_replay_until':
      return invalid('until', error.message);
    default:
      return error;
  }
}

/**
 * @internal Runs a domain action, its errors as problems ({@link asProblem}).
 */
export async function withProblems<Result>(action: () => Promise<Result>): Promise<Result> {
  try {
    return await action();
  } catch (error) {
    throw asProblem(error);
  }
}

/**
 * @internal An endpoint as the API shows it: never its secrets; `failing` is an active endpoint
 * whose attempts have failed since `failingSince`.
 */
export function endpointBody(info: WebhookEndpointInfo): WebhookEndpoint {
  return {
    id: info.id,
    url: info.url,
    events: info.events,
    description: info.description,
    subscriber: info.subscriber,
    headers: info.headers,
    rateLimit: info.rateLimit,
    timeoutSeconds: info.timeoutSeconds,
    payload: info.payload,
    state: info.state === 'active' && info.failingSince !== null ? 'failing' : info.state,
    disabledReason: info.disabledReason,
    failingSince: info.failingSince,
    createdAt: info.createdAt,
    updatedAt: info.updatedAt,
  };
}

/**
 * @internal A query parameter that is an instant: an ISO 8601 date and time with `Z` or an
 * offset, read as `parseIsoTimestamp` reads `updatedSince`; a 400 naming `name` otherwise.
 */
export function instantParameter(name: string) {
  const message = `${name} must be an ISO 8601 timestamp such as 2026-03-01T09:00:00Z`;
  return z
    .string({ error: `${name} must be given once` })
    .max(40, message)
    .transform((value, context) => {
      const iso = parseIsoTimestamp(value);
      if (iso === undefined) {
        context.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      return iso;
    });
}

/** @internal Where a keyset page of `created_at, id` starts. */
export type CreatedPosition = { createdAt: string; id: string };

/**
 * @internal Where the page a `cursor` asks for starts, checked against the fingerprint of the
 * query (its limit and filters); `undefined` without a cursor. A cursor of another list or
 * query is a 400 `validation_failed` on `cursor`.
 */
export function cursorPosition(
  cursor: string | undefined,
  fingerprint: string,
): CreatedPosition | undefined {
  if (cursor === undefined) return undefined;
  const decoded = decodeListCursor(cursor);
  const position = decoded && positionOf('createdAt', decoded.values);
  if (decoded === undefined || position === undefined || position.kind !== 'createdAt') {
    throw invalid('cursor', 'cursor is not a nextCursor of this list');
  }
  if (decoded.fingerprint !== fingerprint) {
    throw invalid('cursor', 'cursor was made for another limit or filters: send the same ones');
  }
  return { createdAt: position.createdAt, id: position.id };
}

/** @internal The fingerprint of a list query: its path, limit and filters. */
export function queryFingerprint(canonical: readonly unknown[]): string {
  return listFingerprint(canonical);
}

/**
 * @internal One page of the `limit + 1` rows read and the cursor after it (`null` when no row
 * follows).
 */
export function pageOf<Row extends { id: string; cursor_at: string }>(
  rows: readonly Row[],
  limit: number,
  fingerprint: string,
): { rows: Row[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > limit && last
      ? encodeListCursor(fingerprint, {
          kind: 'createdAt',
          createdAt: cursorTimestamp(last.cursor_at),
          id: last.id,
        })
      : null;
  return { rows: page, nextCursor };
}

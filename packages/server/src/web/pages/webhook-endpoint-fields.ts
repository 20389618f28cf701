import type { FastifyRequest } from 'fastify';
import type { WebhookEndpointInfo } from '../../delivery/webhook-endpoint-info.js';
import type { Queryable } from '../../storage/database.js';
import { findLatestAuditEntry } from '../../stores/audit-store.js';
import { textField, when } from './page-helpers.js';
import { timeAgo } from './time-ago.js';

// What the Webhook endpoints pages read from a form and say about an endpoint's secret.

/**
 * @internal Where an action's form sends the browser back to: the endpoint's page when it came
 * from there (field `back`), otherwise the list.
 */
export function backTo(request: FastifyRequest<{ Params: { id: string } }>): string {
  return textField(request.body, 'back', 10) === 'detail'
    ? `/webhook-endpoints/${encodeURIComponent(request.params.id)}`
    : '/webhook-endpoints';
}

/**
 * @internal The state of an endpoint's signing secret in words. Only while a rotation's overlap runs is
 * the rotation looked up (its audit entry, newest first, so found at once): then the previous
 * secret still signs, which is what a receiver needs to know.
 */
export async function rotationText(
  database: Queryable,
  endpoint: WebhookEndpointInfo,
  now: number,
): Promise<string> {
  if (!endpoint.previousSecretUntil) return 'One secret signs: no rotation is under way.';
  const rotation = await findLatestAuditEntry(database, {
    action: 'endpoint.secret_rotated',
    target: { type: 'webhook_endpoint', id: endpoint.id },
  });
  const rotated = rotation ? `Rotated ${timeAgo(rotation.occurredAt, now)}` : 'Rotated';
  return `${rotated}; the previous secret also signs until ${when(endpoint.previousSecretUntil)}.`;
}

/** @internal A day in milliseconds: the endpoint page's success rate is of the last one. */
export const DAY_MS = 86_400_000;

/** @internal The kinds ticked in the form (at most 50), or `undefined` for none. */
export function eventsField(body: unknown): string[] | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as Record<string, unknown>).events;
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  const kinds = list.filter((item): item is string => typeof item === 'string').slice(0, 50);
  return kinds.length === 0 ? undefined : kinds;
}

import type { EndpointEventKind, WebhookEndpointStatus } from '@followup/sdk';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { Queryable } from '../storage/database.js';
import { recordOutboxEvent } from '../stores/outbox-store.js';
import type { EndpointRow } from '../stores/webhook-endpoint-store.js';

/** @internal Why an endpoint was disabled, as `endpoint.disabled` says: by the server, or a person. */
export type DisableReason = 'gone' | 'failing' | 'manual';

/**
 * @internal The `data` of an operational event about an endpoint, from its row after the change:
 * its id, URL, subscriber, state as the API names it, and the reason or the run of failures as
 * fitting. Never its secrets nor its static headers' values (a header may carry a key).
 */
export function endpointStatus(
  row: EndpointRow,
  change: { reason?: DisableReason | undefined; failingSince?: string | null | undefined } = {},
): WebhookEndpointStatus {
  const state =
    row.state === 'disabled' ? 'disabled' : row.failing_since === null ? 'active' : 'failing';
  return {
    id: row.id,
    url: row.url,
    subscriber: row.subscriber,
    state,
    reason: change.reason ?? null,
    failingSince: change.failingSince === undefined ? row.failing_since : change.failingSince,
  };
}

/**
 * @internal Writes an operational event (`endpoint.failing`, `endpoint.disabled`,
 * `endpoint.enabled`, `endpoint.recovered`) into the outbox, in the transaction of the change it
 * announces: both commit, or neither. The outbox decides which endpoints take it
 * (`endpointSubscribes` of `stores/webhook-endpoint-store.ts`: those listing the kind, never the
 * endpoint it is about). After the commit, the caller wakes the workers (a route's
 * `onOutboxEvent`; the worker that recorded an attempt looks again when it ends).
 */
export async function recordEndpointEvent(
  transaction: Queryable,
  event: { kind: EndpointEventKind; status: WebhookEndpointStatus },
  dependencies: { clock: Clock; newId: IdGenerator },
): Promise<void> {
  await recordOutboxEvent(
    transaction,
    { event: event.kind, data: { ...event.status } },
    dependencies,
  );
}

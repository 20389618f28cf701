import { recordAuditEntry } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import { FollowUpServerError } from '../errors.js';
import type { IdGenerator } from '../ids.js';
import type { Database } from '../storage/database.js';
import type { AuditActor } from '../stores/audit-store.js';
import { insertDelivery } from '../stores/delivery-store.js';
import { insertDispatchedEvent, notifyOutboxListeners } from '../stores/outbox-store.js';
import { lockEndpointState } from '../stores/webhook-endpoint-store.js';

/**
 * The kind of a test event: sent to one endpoint on request, never fanned out to others and
 * never in `GET /api/events`. Receivers built with the SDK see it as a generic event.
 */
export const TEST_EVENT_KIND = 'webhook.test';

/** What {@link sendTestEvent} queued. */
export interface QueuedTestEvent {
  /** `evt_…`: the body's event. */
  eventId: string;
  /** `dlv_…`: the delivery to the endpoint, due at once; follow its attempts. */
  deliveryId: string;
  /** The endpoint it goes to. */
  endpointId: string;
}

/**
 * Sends a `webhook.test` event to one endpoint: a delivery due at once, signed and retried like
 * any other, so the receiver's verification can be checked end to end. An unknown endpoint is
 * `endpoint_not_found`; a disabled one `endpoint_disabled` (enable it first). Audited as
 * `endpoint.test_sent`. The same function serves `followup-server endpoints test` and
 * the Webhook endpoints page.
 *
 * @example
 * ```ts
 * const { deliveryId } = await sendTestEvent(database, { endpointId: 'we_…', clock, newId });
 * ```
 */
export async function sendTestEvent(
  database: Database,
  options: { endpointId: string; clock: Clock; newId: IdGenerator; actor?: AuditActor },
): Promise<QueuedTestEvent> {
  const { endpointId, clock, newId } = options;
  return database.transaction(async (transaction) => {
    const state = await lockEndpointState(transaction, endpointId);
    if (state === undefined) {
      throw new FollowUpServerError({
        code: 'endpoint_not_found',
        message: `No webhook endpoint ${endpointId}.`,
      });
    }
    if (state !== 'active') {
      throw new FollowUpServerError({
        code: 'endpoint_disabled',
        message: `The endpoint ${endpointId} is disabled: enable it to send it a test event.`,
      });
    }
    const now = new Date(clock.now());
    const eventId = newId('evt');
    const deliveryId = newId('dlv');
    // Dispatched already: the fan-out never gives it to another endpoint.
    await insertDispatchedEvent(transaction, {
      id: eventId,
      event: TEST_EVENT_KIND,
      data: {
        endpointId,
        message: 'A test event from FollowUp: your endpoint received and verified it.',
      },
      now,
    });
    await insertDelivery(transaction, { id: deliveryId, eventId, endpointId, now });
    await recordAuditEntry(
      transaction,
      {
        action: 'endpoint.test_sent',
        actor: options.actor ?? { type: 'operator' },
        target: { type: 'webhook_endpoint', id: endpointId },
        metadata: { deliveryId },
      },
      { clock, newId },
    );
    // Sent at commit; an operator command may run in a process of its own, with no worker.
    await notifyOutboxListeners(transaction);
    return { eventId, deliveryId, endpointId };
  });
}

import type { AuditActor } from '../stores/audit-store.js';
import type { createDeliveryStore, DeliveryInfo } from './deliveries.js';

// The one path of "send this delivery again now", for `POST /api/deliveries/{id}/retry`, the
// console's Retry now and Send again, and the portal's Retry now: the delivery made due with
// its audit entry (the delivery store's retry, in one transaction), then the worker woken, so
// that it is sent now rather than at the next poll. Who may retry which delivery, and where the
// caller goes next, stay with each caller.

/** @internal How {@link retryDelivery} sends a delivery again. */
export interface RetryDeliveryOptions {
  /** Who retries it, for the audit entry (`delivery.retried`). */
  actor: AuditActor;
  /**
   * Sends a delivered one again too; without it a delivered one is refused with the code
   * `delivery_delivered` and nothing changes.
   */
  force: boolean;
  /**
   * Wakes the delivery worker once the retry is committed (the server's `onOutboxEvent`: this
   * instance's worker and, on PostgreSQL, the others'); not called when the retry is refused.
   */
  onOutboxEvent: () => void;
}

/**
 * @internal Makes the delivery `id` due now, with the same id, audited, and wakes the delivery
 * worker. Throws the store's `delivery_not_found` or `delivery_delivered`, waking nothing.
 *
 * @example
 * ```ts
 * const delivery = await retryDelivery(deliveries, id, {
 *   actor: actorOf(request),
 *   force: request.body?.force === true,
 *   onOutboxEvent,
 * });
 * ```
 */
export async function retryDelivery(
  deliveries: Pick<ReturnType<typeof createDeliveryStore>, 'retry'>,
  id: string,
  options: RetryDeliveryOptions,
): Promise<DeliveryInfo> {
  const delivery = await deliveries.retry(id, options.actor, { exceptDelivered: !options.force });
  options.onOutboxEvent();
  return delivery;
}

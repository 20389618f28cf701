import {
  SIGNATURE_HEADER,
  STANDARD_WEBHOOK_HEADERS,
  signPayload,
  signStandardWebhook,
} from '@followup/webhooks/web';
import type { WebhookEvent } from '../schemas/webhook-event.js';
import { DELIVERY_HEADER, EVENT_HEADER } from '../wire/webhook-headers.js';

/**
 * The body and headers of one delivery attempt, as {@link signDelivery} makes them.
 *
 * @example
 * ```ts
 * const { body, headers } = await signDelivery(event, { secrets: [secret], timestamp, deliveryId: 'dlv_1' });
 * await fetch(url, { method: 'POST', headers, body });
 * ```
 */
export interface SignedDelivery {
  /** The JSON body, byte for byte what was signed. */
  readonly body: string;
  /** `content-type`, `user-agent`, the `X-Service-*` headers and the Standard Webhooks ones. */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Options of {@link signDelivery}.
 *
 * @example
 * ```ts
 * const options: SignDeliveryOptions = { secrets: [secret], timestamp: Math.floor(Date.now() / 1000), deliveryId: 'dlv_1' };
 * ```
 */
export interface SignDeliveryOptions {
  /** The endpoint's signing secrets (two during a rotation): one signature of each scheme per secret. */
  readonly secrets: readonly string[];
  /** The attempt's time, in Unix seconds. */
  readonly timestamp: number;
  /** The delivery id (`dlv_…`): the body's `id`, `X-Service-Delivery` and `webhook-id`. */
  readonly deliveryId: string;
}

/**
 * An event as the server delivers it (`delivery/delivery-request.ts` of `@followup/server`): the
 * body `{id, event, eventId, createdAt, data}` (and `previousAttributes` for an update),
 * `X-Service-Event`, `X-Service-Delivery`, `X-Service-Signature` (`t=,v1=`, one `v1` per secret)
 * and the Standard Webhooks headers, signed by `@followup/webhooks` for the attempt's time.
 *
 * @example
 * ```ts
 * const delivery = await signDelivery(event, { secrets: [secret], timestamp: Math.floor(Date.now() / 1000), deliveryId: 'dlv_test_1' });
 * const response = await handler(new Request('http://receiver.test/webhooks', { method: 'POST', ...delivery }));
 * ```
 */
export async function signDelivery(
  event: WebhookEvent,
  options: SignDeliveryOptions,
): Promise<SignedDelivery> {
  const id = options.deliveryId;
  const { previousAttributes } = event as { previousAttributes?: unknown };
  const body = JSON.stringify({
    id,
    event: event.event,
    eventId: event.id,
    createdAt: event.createdAt,
    data: event.data,
    ...(previousAttributes == null ? {} : { previousAttributes }),
  });
  const { secrets, timestamp } = options;
  return {
    body,
    headers: {
      'content-type': 'application/json',
      // The server's own user agent (delivery/post-delivery.ts of the server): a receiver that
      // filters on it takes these deliveries too.
      'user-agent': 'FollowUp-Webhooks/1',
      [EVENT_HEADER]: String(event.event),
      [DELIVERY_HEADER]: id,
      [SIGNATURE_HEADER]: await signPayload(body, { secret: secrets, timestamp }),
      [STANDARD_WEBHOOK_HEADERS.id]: id,
      [STANDARD_WEBHOOK_HEADERS.timestamp]: String(timestamp),
      [STANDARD_WEBHOOK_HEADERS.signature]: await signStandardWebhook(body, {
        id,
        secret: secrets,
        timestamp,
      }),
    },
  };
}

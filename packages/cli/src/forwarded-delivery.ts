import type { WebhookEvent } from '@followup/sdk';
import { DELIVERY_HEADER, EVENT_HEADER } from '@followup/sdk';
import {
  SIGNATURE_HEADER,
  STANDARD_WEBHOOK_HEADERS,
  signPayload,
  signStandardWebhook,
} from '@followup/webhooks';

/** @internal The body and headers of one signed delivery attempt. */
export interface SignedDelivery {
  body: string;
  headers: Record<string, string>;
}

/**
 * @internal The delivery id of a forwarded event: `dlv_` and the event's own id, so that every
 * retry of it, and a run resumed with `--from`, sends the same id, as the server does for a
 * delivery (a receiver deduplicates on it).
 */
export function forwardedDeliveryId(eventId: string): string {
  return `dlv_listen_${eventId.replace(/^evt_/, '')}`;
}

/**
 * @internal An event of `GET /api/events` as the server would deliver it (its
 * `delivery/delivery-request.ts`): the body `{id, event, eventId, createdAt, data}` (and
 * `previousAttributes` for an update), `X-Service-Event`, `X-Service-Delivery`,
 * `X-Service-Signature` (`t=,v1=`, one `v1` per secret) and the Standard Webhooks headers, all
 * signed by `@followup/webhooks` for this attempt's time.
 */
export function signDelivery(
  event: WebhookEvent,
  options: { secrets: readonly string[]; timestamp: number; deliveryId?: string },
): SignedDelivery {
  const id = options.deliveryId ?? forwardedDeliveryId(event.id);
  const { previousAttributes } = event as { previousAttributes?: unknown };
  const body = JSON.stringify({
    id,
    event: event.event,
    eventId: event.id,
    createdAt: event.createdAt,
    data: event.data,
    ...(previousAttributes == null ? {} : { previousAttributes }),
  });
  return { body, headers: signedHeaders(body, { ...options, id, kind: String(event.event) }) };
}

/** @internal The headers of a delivery whose body is `body`, signed with `secrets` at `timestamp`. */
export function signedHeaders(
  body: string,
  options: { id: string; kind: string; secrets: readonly string[]; timestamp: number },
): Record<string, string> {
  return {
    'content-type': 'application/json',
    // The server's own user agent (delivery/post-delivery.ts): a receiver that filters on it
    // takes forwarded deliveries too.
    'user-agent': 'FollowUp-Webhooks/1',
    [EVENT_HEADER]: options.kind,
    [DELIVERY_HEADER]: options.id,
    [SIGNATURE_HEADER]: signPayload(body, {
      secret: options.secrets,
      timestamp: options.timestamp,
    }),
    [STANDARD_WEBHOOK_HEADERS.id]: options.id,
    [STANDARD_WEBHOOK_HEADERS.timestamp]: String(options.timestamp),
    [STANDARD_WEBHOOK_HEADERS.signature]: signStandardWebhook(body, {
      id: options.id,
      secret: options.secrets,
      timestamp: options.timestamp,
    }),
  };
}

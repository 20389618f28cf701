import { SIGNATURE_HEADER, STANDARD_WEBHOOK_HEADERS } from '@followup/webhooks';
import type { DeliveryContentRow } from '../stores/delivery-list-store.js';
import { buildDeliveryRequest } from './delivery-request.js';
import { DELIVERY_USER_AGENT } from './post-delivery.js';

/** The value shown in place of a signature. */
export const REDACTED = '[redacted]';

/** @internal What one delivery sends: its body and headers, the signatures redacted. */
export interface DeliveryAsSent {
  /** The body, byte for byte what is signed and posted (it is the same on every attempt). */
  body: string;
  /** The headers of the last attempt (or of the first, when none was made yet). */
  headers: Record<string, string>;
}

/**
 * @internal What a delivery sends, as `GET /api/deliveries/{id}` shows it: the body the worker
 * builds (`buildDeliveryRequest`, from the same event, so the same bytes) and the headers of its
 * last attempt, timed by that attempt's start (or `now` before the first), with
 * `X-Service-Signature` and `webhook-signature` shown as `[redacted]`: a signature is a proof a
 * reader of the API must not be able to replay, and the endpoint's secret never leaves the
 * server.
 */
export function deliveryAsSent(
  delivery: { id: string; event: string; eventId: string },
  content: DeliveryContentRow,
  now: number,
): DeliveryAsSent {
  const started =
    content.last_attempt_at === null ? now : Date.parse(content.last_attempt_at) || now;
  // Signed with no real secret: the signatures are replaced below.
  const request = buildDeliveryRequest(
    {
      id: delivery.id,
      event: delivery.event,
      eventId: delivery.eventId,
      createdAt: content.event_created_at,
      data: content.data,
      previousAttributes: content.previous_attributes,
      payload: content.payload,
    },
    { secrets: [REDACTED], timestamp: Math.floor(started / 1000) },
  );
  return {
    body: request.body,
    headers: {
      ...request.headers,
      [SIGNATURE_HEADER]: REDACTED,
      [STANDARD_WEBHOOK_HEADERS.signature]: REDACTED,
      // As post-delivery.ts adds them to every attempt.
      'content-type': 'application/json',
      'user-agent': DELIVERY_USER_AGENT,
    },
  };
}

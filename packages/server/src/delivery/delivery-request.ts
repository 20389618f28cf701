import { DELIVERY_HEADER, EVENT_HEADER } from '@followup/sdk';
import {
  SIGNATURE_HEADER,
  STANDARD_WEBHOOK_HEADERS,
  signPayload,
  signStandardWebhook,
} from '@followup/webhooks';
import { thinEventData } from './thin-event-data.js';

/**
 * @internal The key bytes a signing secret gives the Standard Webhooks scheme: the base64 after
 * `whsec_` decoded (standard or URL-safe alphabet, so the base64url secrets of earlier releases
 * work too), as the specification says. The `t=,v1=` scheme keys with the secret string itself,
 * as Stripe does.
 *
 * Every secret the server makes decodes alike here and in `@followup/webhooks`, which signs with
 * these bytes. Node's decoder also reads a secret written by hand that is not base64 (skipping
 * what is not), as the server always has, where the package would refuse it and the delivery
 * could not be built; one that decodes to nothing keys with a zero byte, the same HMAC key as
 * none (HMAC pads a short key with zeros), which the package refuses as empty.
 */
export function standardWebhookKey(secret: string): Uint8Array {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  return key.byteLength === 0 ? new Uint8Array(1) : key;
}

/**
 * `whsec_` and canonical standard base64 of at least one byte: what the server makes. Both
 * decoders read it to the same bytes, so it is given to `@followup/webhooks` as it is.
 */
const CANONICAL_SECRET =
  /^whsec_(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{4}|[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)$/;

/**
 * @internal The secret to sign with in the Standard Webhooks scheme: the secret itself when it is
 * canonical (every secret the server makes), which `@followup/webhooks` decodes to the bytes of
 * {@link standardWebhookKey} and keys with a `KeyObject` it keeps (an HMAC keyed with bytes costs
 * five times more, on Node 24); otherwise the bytes of {@link standardWebhookKey}.
 */
export function standardWebhookSecret(secret: string): string | Uint8Array {
  return CANONICAL_SECRET.test(secret) ? secret : standardWebhookKey(secret);
}

/** One delivery of an event to one endpoint, as the subscriber receives it. */
export interface DeliveryMessage {
  /** The delivery id (`dlv_…`): the body's `id` and `X-Service-Delivery`, the same on every retry. */
  readonly id: string;
  /** The event kind, e.g. `contact.created`. */
  readonly event: string;
  /** When the event happened, ISO 8601 UTC. */
  readonly createdAt: string;
  /** The event's data; for `contact.created`, the contact. */
  readonly data: Readonly<Record<string, unknown>>;
  /** The event's own id (`evt_…`), the same in every endpoint's delivery and in `GET /api/events`. */
  readonly eventId?: string;
  /** For a `*.updated` event, the former values of the fields that changed. */
  readonly previousAttributes?: Readonly<Record<string, unknown>> | null;
  /**
   * The body the delivery carries, as its endpoint's `payload` was when it was queued: `full`
   * (the default) or `thin`, `{id, event, createdAt, eventId, data: {id, object}}` with no
   * field value.
   */
  readonly payload?: 'full' | 'thin';
}

/** The body and headers of one delivery attempt. */
export interface DeliveryRequest {
  /**
   * The JSON body, `{id, event, eventId, createdAt, data}` (and `previousAttributes` for an
   * update), byte for byte what was signed.
   */
  readonly body: string;
  /**
   * `X-Service-Event`, `X-Service-Delivery` and `X-Service-Signature`, and the Standard Webhooks
   * `webhook-id` (the delivery id), `webhook-timestamp` and `webhook-signature`.
   */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * @internal The JSON body of a delivery, the same bytes on every attempt: `{id, event, eventId,
 * createdAt, data}` (and `previousAttributes` for an update), or for a thin delivery exactly
 * `{id, event, createdAt, eventId, data: {id, object}}`, in which no value of the record's
 * fields appears (previousAttributes neither).
 */
export function deliveryBody(message: DeliveryMessage): string {
  if (message.payload === 'thin') {
    return JSON.stringify({
      id: message.id,
      event: message.event,
      createdAt: message.createdAt,
      eventId: message.eventId,
      data: thinEventData(message.event, message.data),
    });
  }
  return JSON.stringify({
    id: message.id,
    event: message.event,
    ...(message.eventId === undefined ? {} : { eventId: message.eventId }),
    createdAt: message.createdAt,
    data: message.data,
    ...(message.previousAttributes == null
      ? {}
      : { previousAttributes: message.previousAttributes }),
  });
}

/**
 * Serializes a delivery and signs it for one attempt: the body is {@link deliveryBody} (the
 * full event, or the thin one; the same bytes on every attempt), `X-Service-Signature` is `t=<now>,v1=<hex>` with one
 * `v1` per signing secret (two while an endpoint's secret is being rotated), and the Standard
 * Webhooks headers carry the same attempt signed their way (`webhook-signature: v1,<base64>`,
 * one per secret).
 *
 * @param message - The delivery.
 * @param options.secrets - The endpoint's signing secrets, the current one first.
 * @param options.timestamp - The attempt's time, in Unix seconds.
 */
export function buildDeliveryRequest(
  message: DeliveryMessage,
  options: { secrets: readonly string[]; timestamp: number },
): DeliveryRequest {
  const body = deliveryBody(message);
  return {
    body,
    headers: {
      [EVENT_HEADER]: message.event,
      [DELIVERY_HEADER]: message.id,
      [SIGNATURE_HEADER]: signPayload(body, {
        secret: options.secrets,
        timestamp: options.timestamp,
      }),
      [STANDARD_WEBHOOK_HEADERS.id]: message.id,
      [STANDARD_WEBHOOK_HEADERS.timestamp]: String(options.timestamp),
      [STANDARD_WEBHOOK_HEADERS.signature]: signStandardWebhook(body, {
        id: message.id,
        secret: options.secrets.map(standardWebhookSecret),
        timestamp: options.timestamp,
      }),
    },
  };
}

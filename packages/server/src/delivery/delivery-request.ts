import { SIGNATURE_HEADER, signPayload } from '@followup/webhooks';

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
}

/** The body and headers of one delivery attempt. */
export interface DeliveryRequest {
  /**
   * The JSON body, `{id, event, eventId, createdAt, data}` (and `previousAttributes` for an
   * update), byte for byte what was signed.
   */
  readonly body: string;
  /** `X-Service-Event`, `X-Service-Delivery` and `X-Service-Signature`. */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Serializes a delivery and signs it for one attempt: the body is `{id, event, createdAt,
 * data}` (the same bytes on every attempt), `X-Service-Signature` is `t=<now>,v1=<hex>` with one
 * `v1` per signing secret (two while an endpoint's secret is being rotated).
 *
 * @param message - The delivery.
 * @param options.secrets - The endpoint's signing secrets, the current one first.
 * @param options.timestamp - The attempt's time, in Unix seconds.
 */
export function buildDeliveryRequest(
  message: DeliveryMessage,
  options: { secrets: readonly string[]; timestamp: number },
): DeliveryRequest {
  const body = JSON.stringify({
    id: message.id,
    event: message.event,
    ...(message.eventId === undefined ? {} : { eventId: message.eventId }),
    createdAt: message.createdAt,
    data: message.data,
    ...(message.previousAttributes == null
      ? {}
      : { previousAttributes: message.previousAttributes }),
  });
  return {
    body,
    headers: {
      'X-Service-Event': message.event,
      'X-Service-Delivery': message.id,
      [SIGNATURE_HEADER]: signPayload(body, {
        secret: options.secrets,
        timestamp: options.timestamp,
      }),
    },
  };
}

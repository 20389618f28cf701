import { z } from 'zod';
import { timestampSchema } from '../internal/timestamp.js';
import { openEnum } from './open-enum.js';

/**
 * The states of a delivery: `pending` (due, or waiting for its next attempt), `delivered` (a 2xx
 * answered), `dead` (every attempt of the schedule failed).
 *
 * @example
 * ```ts
 * const failed = DELIVERY_STATES.filter((state) => state !== 'delivered');
 * ```
 */
export const DELIVERY_STATES = ['pending', 'delivered', 'dead'] as const;

/**
 * Schema of a delivery of one event to one endpoint, as `GET /api/deliveries` lists it (unknown
 * fields are kept).
 *
 * @example
 * ```ts
 * const delivery = deliverySchema.parse(json);
 * ```
 */
export const deliverySchema = z.looseObject({
  /** `dlv_…`: the body's `id`, `X-Service-Delivery` and `webhook-id`. */
  id: z.string().min(1),
  /** The endpoint it goes to (`we_…`). */
  endpointId: z.string(),
  /** The event it carries (`evt_…`). */
  eventId: z.string(),
  /** The event kind, such as `contact.created` or `webhook.test`. */
  event: z.string(),
  /** `pending`, `delivered` or `dead` (an open enumeration). */
  state: openEnum(DELIVERY_STATES),
  /** How many attempts were made. */
  attempts: z.number().int(),
  /** When the next attempt is due, or `null` when none is. */
  nextAttemptAt: timestampSchema.nullable(),
  /** The status of the last attempt, or `null`. */
  lastStatus: z.number().int().nullable(),
  /** Why the last attempt got no answer (`timeout`, …), or `null`. */
  lastError: z.string().nullable(),
  /** When it was queued (ISO 8601 UTC). */
  createdAt: timestampSchema,
  /** When a 2xx answered it, or `null`. */
  deliveredAt: timestampSchema.nullable(),
});

/**
 * A delivery: `id, endpointId, eventId, event, state, attempts, nextAttemptAt, lastStatus,
 * lastError, createdAt, deliveredAt`.
 *
 * @example
 * ```ts
 * for await (const delivery of client.deliveries.list({ state: 'dead' })) console.log(delivery.id);
 * ```
 */
export type Delivery = z.infer<typeof deliverySchema>;

/**
 * Schema of one delivery with what it sends (`GET /api/deliveries/{id}`): the delivery, its
 * `body` (the exact bytes, as text) and its `headers` (the signatures shown as `[redacted]`).
 *
 * @example
 * ```ts
 * const detail = deliveryDetailSchema.parse(json);
 * JSON.parse(detail.body).event; // 'contact.created'
 * ```
 */
export const deliveryDetailSchema = deliverySchema.extend({
  /** The body, byte for byte what is signed and sent, as text. */
  body: z.string(),
  /**
   * The headers sent with the last attempt (or to be sent with the first), the signatures
   * (`X-Service-Signature`, `webhook-signature`) shown as `[redacted]`.
   */
  headers: z.record(z.string(), z.string()),
});

/**
 * One delivery with its body and headers.
 *
 * @example
 * ```ts
 * const { body, headers }: DeliveryDetail = await client.deliveries.get('dlv_01J…');
 * ```
 */
export type DeliveryDetail = z.infer<typeof deliveryDetailSchema>;

/**
 * Schema of the body of `GET /api/deliveries`: `{ "deliveries": [...], "nextCursor": ... }`,
 * oldest first.
 *
 * @example
 * ```ts
 * const { deliveries, nextCursor } = deliveryListSchema.parse(json);
 * ```
 */
export const deliveryListSchema = z.object({
  /** One page of deliveries, oldest first. */
  deliveries: z.array(deliverySchema),
  /** Pass it back as `cursor` for the next page; `null` on the last page. */
  nextCursor: z.string().nullable(),
});

/**
 * The body of `GET /api/deliveries`.
 *
 * @example
 * ```ts
 * const body: DeliveryList = { deliveries: [], nextCursor: null };
 * ```
 */
export type DeliveryList = z.infer<typeof deliveryListSchema>;

/**
 * Schema of the body of `POST /api/deliveries/{id}/retry`: `force` sends a delivered one again
 * (without it, that is 409 `conflict`).
 *
 * @example
 * ```ts
 * retryDeliveryInputSchema.parse({ force: true });
 * ```
 */
export const retryDeliveryInputSchema = z.strictObject({
  /** Send it again even when it was delivered (without it, that is 409 `conflict`). */
  force: z
    .boolean()
    .optional()
    .describe('Send it again even when it was delivered (default false: 409 conflict)'),
});

/**
 * What `client.deliveries.retry()` sends.
 *
 * @example
 * ```ts
 * const input: RetryDeliveryInput = { force: true };
 * ```
 */
export type RetryDeliveryInput = z.input<typeof retryDeliveryInputSchema>;

import { z } from 'zod';
import { timestampSchema } from '../internal/timestamp.js';
import { openEnum } from './open-enum.js';

/**
 * Schema of a webhook endpoint as the service answers it, never with its secret (unknown fields
 * are kept).
 *
 * @example
 * ```ts
 * const endpoint = webhookEndpointSchema.parse(json);
 * ```
 */
export const webhookEndpointSchema = z.looseObject({
  /** `we_…` */
  id: z.string().min(1),
  /** Where deliveries are posted. */
  url: z.string(),
  /** The event kinds it takes, or `['*']`: every kind, later ones included. */
  events: z.array(z.string()),
  /** What it is for, or `null`. */
  description: z.string().nullable(),
  /** The subscriber it belongs to (`a-z0-9_-`, 1 to 64), or `null`. */
  subscriber: z.string().nullable(),
  /** Static headers sent with each delivery. */
  headers: z.record(z.string(), z.string()),
  /** At most this many deliveries per second, or `null` for no limit. */
  rateLimit: z.number().int().nullable(),
  /** How long one attempt may take, in seconds. */
  timeoutSeconds: z.number().int(),
  /** `full` (the event in the body) or `thin` (ids only); an open enumeration. */
  payload: openEnum(['full', 'thin']),
  /**
   * `active`; `failing` (active, but every attempt since `failingSince` failed); `disabled` (by a
   * person, or by the server: see `disabledReason`). An open enumeration.
   */
  state: openEnum(['active', 'failing', 'disabled']),
  /**
   * Why the server disabled it: `gone` (the subscriber answered 410) or `failing` (every attempt
   * failed for the auto-disable period); `null` when active or disabled by a person.
   */
  disabledReason: z.string().nullable(),
  /** Since when every attempt has failed, or `null`. */
  failingSince: timestampSchema.nullable(),
  /** When it was added (ISO 8601 UTC). */
  createdAt: timestampSchema,
  /** When it last changed (ISO 8601 UTC). */
  updatedAt: timestampSchema,
});

/**
 * A webhook endpoint: `id, url, events, description, subscriber, headers, rateLimit,
 * timeoutSeconds, payload, state, disabledReason, failingSince, createdAt, updatedAt`.
 *
 * @example
 * ```ts
 * const endpoint: WebhookEndpoint = await client.webhookEndpoints.get('we_01J…');
 * ```
 */
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;

/**
 * Schema of a newly created endpoint: the endpoint and its signing `secret` (`whsec_…`), which
 * is shown this once.
 *
 * @example
 * ```ts
 * const { secret } = createdWebhookEndpointSchema.parse(json);
 * ```
 */
export const createdWebhookEndpointSchema = webhookEndpointSchema.extend({
  /** The signing secret (`whsec_…`): keep it now, it is never shown again. */
  secret: z.string().min(1),
});

/**
 * A newly created endpoint with its signing `secret`, shown this once.
 *
 * @example
 * ```ts
 * const { id, secret }: CreatedWebhookEndpoint = await client.webhookEndpoints.create({ url });
 * ```
 */
export type CreatedWebhookEndpoint = z.infer<typeof createdWebhookEndpointSchema>;

/**
 * Schema of the body of `GET /api/webhook-endpoints`: `{ "webhookEndpoints": [...],
 * "nextCursor": ... }`, oldest first.
 *
 * @example
 * ```ts
 * const { webhookEndpoints, nextCursor } = webhookEndpointListSchema.parse(json);
 * ```
 */
export const webhookEndpointListSchema = z.object({
  /** One page of endpoints, oldest first. */
  webhookEndpoints: z.array(webhookEndpointSchema),
  /** Pass it back as `cursor` for the next page; `null` on the last page. */
  nextCursor: z.string().nullable(),
});

/**
 * The body of `GET /api/webhook-endpoints`.
 *
 * @example
 * ```ts
 * const body: WebhookEndpointList = { webhookEndpoints: [], nextCursor: null };
 * ```
 */
export type WebhookEndpointList = z.infer<typeof webhookEndpointListSchema>;

/**
 * Schema of the answer of `POST /api/webhook-endpoints/{id}/rotate-secret`: the new `secret`,
 * shown this once.
 *
 * @example
 * ```ts
 * const { secret } = rotatedWebhookSecretSchema.parse(json);
 * ```
 */
export const rotatedWebhookSecretSchema = z.object({
  /** The new signing secret (`whsec_…`); the previous one signs beside it for the overlap. */
  secret: z.string().min(1),
});

/**
 * The answer of a secret rotation: the new `secret`, shown this once.
 *
 * @example
 * ```ts
 * const { secret }: RotatedWebhookSecret = await client.webhookEndpoints.rotateSecret(id);
 * ```
 */
export type RotatedWebhookSecret = z.infer<typeof rotatedWebhookSecretSchema>;

/**
 * Schema of the answer of `POST /api/webhook-endpoints/{id}/test`: the `deliveryId` of the
 * `webhook.test` delivery queued.
 *
 * @example
 * ```ts
 * const { deliveryId } = queuedTestDeliverySchema.parse(json);
 * ```
 */
export const queuedTestDeliverySchema = z.object({
  /** `dlv_…`: follow it with `client.deliveries.get()`. */
  deliveryId: z.string().min(1),
});

/**
 * The answer of `client.webhookEndpoints.test()`.
 *
 * @example
 * ```ts
 * const { deliveryId }: QueuedTestDelivery = await client.webhookEndpoints.test(id);
 * ```
 */
export type QueuedTestDelivery = z.infer<typeof queuedTestDeliverySchema>;

import { z } from 'zod';
import { timestampSchema } from '../internal/timestamp.js';
import { eventSchema } from './event-envelope.js';
import { openEnum } from './open-enum.js';

/**
 * Schema of the `data` of the operational `endpoint.*` events: the webhook endpoint the event is
 * about, as it is after the change. Never its secret, nor its static headers.
 *
 * @example
 * ```ts
 * const endpoint = webhookEndpointStatusSchema.parse(event.data);
 * if (endpoint.state === 'disabled') page(`${endpoint.url} disabled: ${endpoint.reason}`);
 * ```
 */
export const webhookEndpointStatusSchema = z.looseObject({
  /** The endpoint's id (`we_…`). */
  id: z.string().min(1),
  /** Where its deliveries are posted. */
  url: z.string(),
  /** The subscriber it belongs to, or `null`. */
  subscriber: z.string().nullable(),
  /**
   * Its state after the change: `failing` (active, its attempts failing), `disabled`, or
   * `active` (enabled, or recovered). An open enumeration.
   */
  state: openEnum(['active', 'failing', 'disabled']),
  /**
   * For `endpoint.disabled`, why: `gone` (the subscriber answered 410), `failing` (every attempt
   * failed for the auto-disable period) or `manual` (a person disabled it, through the API, the
   * console or the operator's command); `null` for the other kinds. An open enumeration.
   */
  reason: openEnum(['gone', 'failing', 'manual']).nullable(),
  /**
   * Since when every attempt has failed: the first failure of the streak, for `endpoint.failing`,
   * `endpoint.recovered` (the streak it recovered from) and a `failing` disable; otherwise `null`.
   */
  failingSince: timestampSchema.nullable(),
});

/**
 * A webhook endpoint as the `endpoint.*` events carry it.
 *
 * @example
 * ```ts
 * const describe = (endpoint: WebhookEndpointStatus) => `${endpoint.id} ${endpoint.state}`;
 * ```
 */
export type WebhookEndpointStatus = z.infer<typeof webhookEndpointStatusSchema>;

/**
 * Schema of an `endpoint.failing` event: an attempt to the endpoint failed after a success (or
 * as its first), starting a failing streak; sent once per streak.
 *
 * @example
 * ```ts
 * const event = endpointFailingEventSchema.parse(JSON.parse(rawBody));
 * ```
 */
export const endpointFailingEventSchema = eventSchema(
  'endpoint.failing',
  webhookEndpointStatusSchema,
);
/**
 * Schema of an `endpoint.disabled` event: the endpoint was disabled, by the server (`reason`
 * `gone` or `failing`) or by a person (`manual`); its deliveries wait until it is enabled.
 *
 * @example
 * ```ts
 * const event = endpointDisabledEventSchema.parse(JSON.parse(rawBody));
 * if (event.data.reason !== 'manual') alert(event.data.url);
 * ```
 */
export const endpointDisabledEventSchema = eventSchema(
  'endpoint.disabled',
  webhookEndpointStatusSchema,
);
/**
 * Schema of an `endpoint.enabled` event: a person enabled a disabled endpoint again.
 *
 * @example
 * ```ts
 * const event = endpointEnabledEventSchema.parse(JSON.parse(rawBody));
 * ```
 */
export const endpointEnabledEventSchema = eventSchema(
  'endpoint.enabled',
  webhookEndpointStatusSchema,
);
/**
 * Schema of an `endpoint.recovered` event: the first successful attempt after a failing streak
 * (`failingSince` says since when it had failed).
 *
 * @example
 * ```ts
 * const event = endpointRecoveredEventSchema.parse(JSON.parse(rawBody));
 * ```
 */
export const endpointRecoveredEventSchema = eventSchema(
  'endpoint.recovered',
  webhookEndpointStatusSchema,
);

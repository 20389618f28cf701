import { z } from 'zod';
import { timestampSchema } from '../internal/timestamp.js';
import { contactSchema } from './contact.js';

/**
 * Schema of a `contact.created` webhook body: `{ id, event, createdAt, data }`, where `data`
 * holds the new contact (at least `id`, `firstName`, `lastName`).
 *
 * @example
 * ```ts
 * const event = contactCreatedEventSchema.parse(JSON.parse(rawBody));
 * ```
 */
export const contactCreatedEventSchema = z.looseObject({
  /** The delivery id (`dlv_…`), equal to the `X-Service-Delivery` header on every retry. */
  id: z.string().min(1),
  /** Always `contact.created`. */
  event: z.literal('contact.created'),
  /** When the event happened (ISO 8601 UTC). */
  createdAt: timestampSchema,
  /** The contact that was created. */
  data: contactSchema.partial().required({ id: true, firstName: true, lastName: true }),
});

/**
 * A verified `contact.created` event.
 *
 * @example
 * ```ts
 * const event: ContactCreatedEvent = await client.webhooks.unwrap(rawBody, headers, { secret });
 * console.log(event.data.firstName);
 * ```
 */
export type ContactCreatedEvent = z.infer<typeof contactCreatedEventSchema>;

/**
 * The event kinds this version of the SDK can unwrap.
 *
 * @example
 * ```ts
 * WEBHOOK_EVENT_KINDS.includes('contact.created'); // true
 * ```
 */
export const WEBHOOK_EVENT_KINDS = ['contact.created'] as const;

/**
 * Schema of any webhook event this SDK version knows, discriminated by `event`.
 *
 * @example
 * ```ts
 * const event = webhookEventSchema.parse(JSON.parse(rawBody));
 * ```
 */
export const webhookEventSchema = z.discriminatedUnion('event', [contactCreatedEventSchema]);

/**
 * Any webhook event this SDK version knows (today only `contact.created`); switch on `event`.
 *
 * @example
 * ```ts
 * const event: WebhookEvent = await client.webhooks.unwrap(rawBody, headers, { secret });
 * switch (event.event) {
 *   case 'contact.created':
 *     await welcome(event.data);
 * }
 * ```
 */
export type WebhookEvent = z.infer<typeof webhookEventSchema>;

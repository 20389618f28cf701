import { z } from 'zod';
import { timestampSchema } from '../internal/timestamp.js';

/**
 * Schema of a thin webhook body, what an endpoint whose `payload` is `thin` receives in place
 * of the event: exactly `{id, event, createdAt, eventId, data: {id, object}}`, with no value of
 * the record's fields (for patient data that must not leave in webhook bodies). Fetch the event
 * with `client.events.get(event.eventId)`, or let `client.webhooks.handler({ expand: true })` do
 * it.
 *
 * @example
 * ```ts
 * const thin = thinWebhookEventSchema.parse(JSON.parse(rawBody));
 * const full = await client.events.get(thin.eventId);
 * ```
 */
export const thinWebhookEventSchema = z.looseObject({
  /** The delivery id (`dlv_…`), as in every webhook body, the same on every retry. */
  id: z.string().min(1),
  /** The event kind, e.g. `contact.created`. */
  event: z.string().min(1),
  /** When the change happened (ISO 8601 UTC). */
  createdAt: timestampSchema,
  /** The event's id (`evt_…`): `GET /api/events/{eventId}` answers the full event. */
  eventId: z.string().min(1),
  /** The record the event is about: its id and object type, nothing else. */
  data: z.strictObject({
    /** The record's id (`con_…`, `deal_…`, `msg_…`, `rcpt_…`; `we_…` for `webhook.test`). */
    id: z.string().min(1),
    /**
     * The record's object type: `contact`, `deal`, `message`, `ehr_receipt`, `webhook_endpoint`,
     * or one added later.
     */
    object: z.string().min(1),
  }),
});

/**
 * A thin webhook body (see {@link thinWebhookEventSchema}).
 *
 * @example
 * ```ts
 * const onThin = (event: ThinWebhookEvent) => queue.add(event.eventId);
 * ```
 */
export type ThinWebhookEvent = z.infer<typeof thinWebhookEventSchema>;

/**
 * Whether a parsed webhook body (or event) is thin: its `data` is exactly `{id, object}` and it
 * has an `eventId`. No full event of the kinds the server sends has that shape.
 *
 * @example
 * ```ts
 * if (isThinWebhookEvent(body)) body = await client.events.get(body.eventId);
 * ```
 */
export function isThinWebhookEvent(value: unknown): value is ThinWebhookEvent {
  return thinWebhookEventSchema.safeParse(value).success;
}

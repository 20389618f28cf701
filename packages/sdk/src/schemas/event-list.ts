import { z } from 'zod';
import { type WebhookEvent, webhookEventSchema } from './webhook-event.js';

/**
 * @internal One event of the feed as the server describes it in its OpenAPI document and checks
 * its own answers against (`GET /api/events/{eventId}`, each event of `GET /api/events`): its
 * envelope. The client reads it with `webhookEventSchema`, which checks a known kind's data.
 */
export const eventFeedEventSchema = z.object({
  id: z.string().describe('The event id (evt_…)'),
  event: z.string(),
  createdAt: z.string(),
  data: z.record(z.string(), z.unknown()),
  previousAttributes: z.record(z.string(), z.unknown()).optional(),
});

/**
 * @internal The page of `GET /api/events` as the server describes it in its OpenAPI document and
 * checks its own answers against: each event's envelope (`id`, `event`, `createdAt`, `data`,
 * `previousAttributes`). The client reads pages with {@link eventListSchema}, which checks each
 * event of a known kind against that kind's schema.
 */
export const eventFeedPageSchema = z.object({
  events: z.array(eventFeedEventSchema),
  nextCursor: z.string().nullable(),
});

/**
 * Schema of a page of `GET /api/events` as the client reads it: `{ "events": [...],
 * "nextCursor": "…" | null }`, each event a {@link WebhookEvent} (a known kind checked against
 * its own schema, another kind passed through with its envelope checked). Unknown fields are kept.
 *
 * @example
 * ```ts
 * const { events, nextCursor } = eventListSchema.parse(json);
 * ```
 */
export const eventListSchema: z.ZodType<EventList> = z.looseObject({
  /** The events of the page, oldest first (may be empty while `nextCursor` is not null). */
  events: z.array(webhookEventSchema),
  /** The cursor of the next page, or `null` on the last page. */
  nextCursor: z.string().min(1).nullable(),
});

/**
 * A page of events as the service sends it.
 *
 * @example
 * ```ts
 * const body: EventList = { events: [], nextCursor: null };
 * ```
 */
export interface EventList {
  /** The events of the page, oldest first. */
  readonly events: WebhookEvent[];
  /** The cursor of the next page, or `null` on the last page. */
  readonly nextCursor: string | null;
  /** Fields a later release may add. */
  readonly [key: string]: unknown;
}

import { z } from 'zod';
import { timestampSchema } from '../internal/timestamp.js';
import type { WebhookEventKind } from '../wire/event-kinds.js';

/** @internal The fields every event has, whatever its kind. */
export const envelope = {
  /**
   * In a webhook, the delivery id (`dlv_…`, equal to `X-Service-Delivery` and `webhook-id`, the
   * same on every retry); in `GET /api/events`, the event id (`evt_…`).
   */
  id: z.string().min(1),
  /**
   * The event's own id (`evt_…`), the same in every endpoint's delivery of it and in
   * `GET /api/events`. Absent from the webhooks of releases before it was added.
   */
  eventId: z.string().min(1).optional(),
  /** When the change happened (ISO 8601 UTC). */
  createdAt: timestampSchema,
};

/**
 * @internal The schema of an event of kind `kind` whose `data` is `data`: the envelope, the
 * kind as a literal, the data.
 */
export function eventSchema<const Kind extends WebhookEventKind, Data extends z.ZodType>(
  kind: Kind,
  data: Data,
) {
  return z.looseObject({
    ...envelope,
    /** The event kind. */
    event: z.literal(kind),
    /** The record the event is about (see each kind). */
    data,
  });
}

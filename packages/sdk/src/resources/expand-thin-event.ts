import { ResponseValidationError } from '../request-errors.js';
import type { ThinWebhookEvent } from '../schemas/thin-webhook-event.js';
import type { WebhookEvent } from '../schemas/webhook-event.js';

/** @internal Fetches one event by its id: `client.events.get`, bound to the client. */
export type EventFetcher = (eventId: string) => PromiseLike<WebhookEvent>;

/**
 * @internal The full event a thin body stands for, as a full endpoint would have received it:
 * the event fetched by its `eventId`, with the delivery's `id` (so that a handler deduping by
 * `event.id` sees the same ids either way) and the event's as `eventId`. Refused when the server
 * answers another event or kind than the signed thin body names.
 */
export async function expandThinEvent(
  thin: ThinWebhookEvent,
  fetchEvent: EventFetcher,
): Promise<WebhookEvent> {
  const full = await fetchEvent(thin.eventId);
  if (full.id !== thin.eventId || String(full.event) !== thin.event) {
    throw new ResponseValidationError({
      message: `GET /api/events/${thin.eventId} answered another event than the webhook names.`,
      issues: [{ path: ['eventId'], message: 'differs from the thin body' }],
    });
  }
  return { ...full, id: thin.id, eventId: full.id } as WebhookEvent;
}

import { WEBHOOK_EVENT_KINDS } from '@followup/sdk';
import { FollowUpServerError } from '../errors.js';
import { ALL_EVENTS } from '../stores/webhook-endpoint-store.js';

/** The event kinds an endpoint may subscribe to: the SDK's wire list. */
export const deliverableEvents: readonly string[] = WEBHOOK_EVENT_KINDS;

/**
 * @internal Parses `--events`: kinds separated by commas, each one the server delivers; without
 * it (or with `*`), every kind, later ones included (`['*']`), the operational `endpoint.*` kinds
 * aside: an endpoint takes those only when it lists them (`endpointSubscribes`).
 */
export function parseEventList(text: string | undefined): string[] {
  if (text === undefined || text.trim() === ALL_EVENTS) return [ALL_EVENTS];
  const events = [
    ...new Set(
      text
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== ''),
    ),
  ];
  if (events.length === 0) {
    throw new FollowUpServerError({
      code: 'invalid_events',
      message: 'Name at least one event kind.',
    });
  }
  for (const event of events) {
    if (!deliverableEvents.includes(event)) {
      throw new FollowUpServerError({
        code: 'invalid_events',
        message: `Unknown event kind ${JSON.stringify(event.slice(0, 60))}; known: ${deliverableEvents.join(', ')}.`,
      });
    }
  }
  return events;
}

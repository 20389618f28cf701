import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { Database } from '../storage/database.js';
import { ALL_EVENTS } from './webhook-endpoints.js';

/** Most outbox events turned into deliveries in one transaction. */
export const FAN_OUT_BATCH = 200;

/**
 * @internal Turns outbox events not yet dispatched into deliveries: one per active endpoint
 * subscribed to the event's kind and registered when the event happened, each due at once. The
 * events are marked dispatched in the same transaction. Safe on many instances at once: events
 * are taken with `FOR UPDATE SKIP LOCKED`, and `UNIQUE (event_id, endpoint_id)` with `ON
 * CONFLICT DO NOTHING` keeps it to one delivery per event and endpoint whatever happens.
 *
 * @returns How many events were dispatched (at most {@link FAN_OUT_BATCH}; call again while it
 * is that many).
 */
export async function fanOutEvents(
  database: Database,
  dependencies: { clock: Clock; newId: IdGenerator },
  limit: number = FAN_OUT_BATCH,
): Promise<number> {
  return database.transaction(async (transaction) => {
    const { rows: events } = await transaction.query<{
      id: string;
      event: string;
      created_at: string;
    }>(
      `SELECT id, event, created_at FROM outbox_events WHERE dispatched_at IS NULL
        ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    if (events.length === 0) return 0;
    const { rows: endpoints } = await transaction.query<{
      id: string;
      events: string[];
      created_at: string;
    }>(
      // A parameter, so that the embedded database plans it once (a prepared statement).
      'SELECT id, events, created_at FROM webhook_endpoints WHERE state = $1',
      ['active'],
    );
    const now = new Date(dependencies.clock.now());
    const ids: string[] = [];
    const eventIds: string[] = [];
    const endpointIds: string[] = [];
    for (const event of events) {
      for (const endpoint of endpoints) {
        if (!endpoint.events.includes(event.event) && !endpoint.events.includes(ALL_EVENTS)) {
          continue;
        }
        // An endpoint receives the events that happen after it was added.
        if (Date.parse(endpoint.created_at) > Date.parse(event.created_at)) continue;
        ids.push(dependencies.newId('dlv'));
        eventIds.push(event.id);
        endpointIds.push(endpoint.id);
      }
    }
    if (ids.length > 0) {
      await transaction.query(
        `INSERT INTO deliveries (id, event_id, endpoint_id, state, attempts, next_attempt_at, created_at)
         SELECT id, event_id, endpoint_id, 'pending', 0, $4, $4
           FROM unnest($1::text[], $2::text[], $3::text[]) AS pairs (id, event_id, endpoint_id)
         ON CONFLICT (event_id, endpoint_id) DO NOTHING`,
        [ids, eventIds, endpointIds, now],
      );
    }
    await transaction.query('UPDATE outbox_events SET dispatched_at = $2 WHERE id = ANY($1)', [
      events.map((event) => event.id),
      now,
    ]);
    return events.length;
  });
}

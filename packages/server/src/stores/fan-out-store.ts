import type { Queryable } from '../storage/database.js';
import { endpointTakesEvent } from './webhook-endpoint-store.js';

// The fan-out's two statements (delivery/fan-out.ts says how they work together): find the
// undispatched events with the endpoints that take them, then make those deliveries.

/** @internal What {@link takeUndispatchedEvents} found. */
export interface UndispatchedEvents {
  /** How many events were taken. */
  events: number;
  /** The taken events that have deliveries to make, in their order. */
  event_ids: string[];
  /** The deliveries to make, as pairs of event (this) and endpoint (`pair_endpoint_ids`). */
  pair_event_ids: string[];
  /** The endpoints of the deliveries to make. */
  pair_endpoint_ids: string[];
}

/**
 * @internal Takes at most `limit` undispatched events (`FOR UPDATE SKIP LOCKED`), marks those
 * that no endpoint takes dispatched, and answers the deliveries to make for the others.
 */
export async function takeUndispatchedEvents(
  database: Queryable,
  take: { now: Date; limit: number },
): Promise<UndispatchedEvents | undefined> {
  const { now, limit } = take;
  const { rows } = await database.query<UndispatchedEvents>(
    `WITH events AS (
       SELECT id, seq, event, created_at FROM outbox_events WHERE dispatched_at IS NULL
        ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED),
     pairs AS (
       -- An endpoint receives the kinds it lists (or every kind) that happen after it was added.
       SELECT events.id AS event_id, events.seq, endpoint.id AS endpoint_id,
              endpoint.created_at AS endpoint_created_at
         FROM events JOIN webhook_endpoints AS endpoint
           ON ${endpointTakesEvent('endpoint', 'events.event', 'events.created_at')}),
     marked AS (
       UPDATE outbox_events AS taken SET dispatched_at = $1 FROM events
        WHERE taken.id = events.id AND NOT EXISTS (SELECT FROM pairs))
     SELECT (SELECT count(*) FROM events)::int AS events,
            (SELECT coalesce(array_agg(id ORDER BY seq), '{}') FROM events
              WHERE EXISTS (SELECT FROM pairs)) AS event_ids,
            (SELECT coalesce(array_agg(event_id ORDER BY seq, endpoint_created_at, endpoint_id), '{}')
               FROM pairs) AS pair_event_ids,
            (SELECT coalesce(array_agg(endpoint_id ORDER BY seq, endpoint_created_at, endpoint_id), '{}')
               FROM pairs) AS pair_endpoint_ids`,
    [now, limit],
  );
  return rows[0];
}

/**
 * @internal Inserts the deliveries `ids` (one per event and endpoint pair, due at `now`; a pair
 * another instance made already is passed by) and marks their events dispatched, in one
 * statement.
 */
export async function insertDeliveriesOfEvents(
  database: Queryable,
  insert: { ids: string[]; found: UndispatchedEvents; now: Date },
): Promise<void> {
  const { ids, found, now } = insert;
  await database.query(
    `WITH inserted AS (
       INSERT INTO deliveries (id, event_id, endpoint_id, state, attempts, next_attempt_at, created_at)
       SELECT id, event_id, endpoint_id, 'pending', 0, $4, $4
         FROM unnest($1::text[], $2::text[], $3::text[]) AS pairs (id, event_id, endpoint_id)
       ON CONFLICT (event_id, endpoint_id) DO NOTHING)
     UPDATE outbox_events SET dispatched_at = $4 WHERE id = ANY ($5) AND dispatched_at IS NULL`,
    [ids, found.pair_event_ids, found.pair_endpoint_ids, now, found.event_ids],
  );
}

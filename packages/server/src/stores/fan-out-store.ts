import { bookkeepingWrite } from '../storage/bookkeeping-writes.js';
import type { Queryable } from '../storage/database.js';
import { replannedAsTablesGrow } from '../storage/statement-cache.js';

// The fan-out's two statements (delivery/fan-out.ts says how they work together): find the
// undispatched events with the endpoints that took them when they were written, then make those
// deliveries. Which endpoints take an event is decided once, as it is written (`outboxEventPart`
// of outbox-store.ts); the fan-out only carries the decision out.

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
 * @internal The first fan-out statement (exported for the test that explains its plan): at most
 * `$2` undispatched events, oldest first, from the head of `outbox_events_fan_out` (`FOR UPDATE
 * SKIP LOCKED`), each with the endpoints recorded when it was written (`fan_out_to`), in the
 * order they were added (an endpoint removed since is passed by: its deliveries went with it);
 * when none of them has an endpoint left, they are marked dispatched at `$1`. A
 * {@link bookkeepingWrite}: lost in a crash, the events are taken again.
 */
export const TAKE_UNDISPATCHED_EVENTS = bookkeepingWrite(`WITH events AS (
       SELECT id, seq, fan_out_to FROM outbox_events WHERE fan_out_to IS NOT NULL
        ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED),
     pairs AS (
       SELECT events.id AS event_id, events.seq, taker.position, taker.endpoint_id
         FROM events
        CROSS JOIN unnest(events.fan_out_to) WITH ORDINALITY AS taker (endpoint_id, position)
        WHERE EXISTS (SELECT FROM webhook_endpoints AS endpoint
                       WHERE endpoint.id = taker.endpoint_id)),
     marked AS (
       -- The ids as an array: the planner then reads them by the primary key, never the outbox
       -- whole, whatever it estimates the batch to be.
       UPDATE outbox_events SET dispatched_at = $1, fan_out_to = NULL
        WHERE id = ANY (ARRAY(SELECT id FROM events)) AND NOT EXISTS (SELECT FROM pairs))
     SELECT (SELECT count(*) FROM events)::int AS events,
            (SELECT coalesce(array_agg(id ORDER BY seq), '{}') FROM events
              WHERE EXISTS (SELECT FROM pairs)) AS event_ids,
            (SELECT coalesce(array_agg(event_id ORDER BY seq, position), '{}')
               FROM pairs) AS pair_event_ids,
            (SELECT coalesce(array_agg(endpoint_id ORDER BY seq, position), '{}')
               FROM pairs) AS pair_endpoint_ids`);

/**
 * @internal Takes at most `limit` undispatched events (`FOR UPDATE SKIP LOCKED`), marks those
 * that no endpoint takes dispatched, and answers the deliveries to make for the others.
 */
export async function takeUndispatchedEvents(
  database: Queryable,
  take: { now: Date; limit: number },
): Promise<UndispatchedEvents | undefined> {
  const { rows } = await database.query<UndispatchedEvents>(TAKE_UNDISPATCHED_EVENTS, [
    take.now,
    take.limit,
  ]);
  return rows[0];
}

/**
 * @internal The second fan-out statement (exported for the test that explains its plan): inserts
 * the deliveries `$1` of the pairs of events `$2` and endpoints `$3`, due at `$4`, each with the
 * body its endpoint takes now (`payload`; a pair another instance made already is passed by),
 * and marks the events `$5` dispatched. Planned again as its tables grow
 * ({@link replannedAsTablesGrow}), and so with one plan for every batch of ids on PGlite, where
 * PostgreSQL left to choose planned it anew on every run. A {@link bookkeepingWrite}: lost in a
 * crash, the events are fanned out again, and no claim answers before the deliveries are durable.
 */
export const INSERT_DELIVERIES_OF_EVENTS = bookkeepingWrite(
  replannedAsTablesGrow(`WITH inserted AS (
       INSERT INTO deliveries
              (id, event_id, endpoint_id, state, attempts, next_attempt_at, created_at, payload)
       -- The body the endpoint takes now (full or thin) is the delivery's for good: every
       -- attempt and GET /api/deliveries/{id} show the same bytes (migration 30).
       SELECT pairs.id, pairs.event_id, pairs.endpoint_id, 'pending', 0, $4, $4,
              coalesce((SELECT endpoint.payload FROM webhook_endpoints AS endpoint
                         WHERE endpoint.id = pairs.endpoint_id), 'full')
         FROM unnest($1::text[], $2::text[], $3::text[]) AS pairs (id, event_id, endpoint_id)
       ON CONFLICT (event_id, endpoint_id) WHERE replay_id IS NULL DO NOTHING)
     -- The ids through a subquery, as in the first statement: with the whole batch in view, the
     -- planner chose to read a small outbox whole rather than look each event up.
     UPDATE outbox_events SET dispatched_at = $4, fan_out_to = NULL
      WHERE id = ANY (ARRAY(SELECT unnest($5::text[]))) AND fan_out_to IS NOT NULL`),
);

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
  await database.query(INSERT_DELIVERIES_OF_EVENTS, [
    ids,
    found.pair_event_ids,
    found.pair_endpoint_ids,
    now,
    found.event_ids,
  ]);
}

import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { Database } from '../storage/database.js';
import { insertDeliveriesOfEvents, takeUndispatchedEvents } from '../stores/fan-out-store.js';

/** Most outbox events {@link fanOutEvents} takes at a time. */
export const FAN_OUT_BATCH = 200;

/**
 * @internal Turns outbox events not yet dispatched into deliveries: one per active endpoint
 * subscribed to the event's kind and registered when the event happened, each due at once, and
 * marks the events dispatched. Events that no endpoint takes (with no endpoint at all, every
 * look) are marked in the statement that finds them: one round trip. Events with deliveries to
 * make take a second statement that inserts those and marks the events in one go, so an event is
 * never marked without its deliveries; if the process stops in between, the next look takes the
 * events again.
 *
 * Safe on many instances at once: events are taken with `FOR UPDATE SKIP LOCKED`, and
 * `UNIQUE (event_id, endpoint_id)` with `ON CONFLICT DO NOTHING` keeps it to one delivery per
 * event and endpoint when two instances take the same events between the two statements.
 *
 * @returns How many events were taken (at most `limit`, {@link FAN_OUT_BATCH} by default; call
 * again while it is that many).
 */
export async function fanOutEvents(
  database: Database,
  dependencies: { clock: Clock; newId: IdGenerator },
  limit: number = FAN_OUT_BATCH,
): Promise<number> {
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new RangeError(`fanOutEvents: limit must be a positive integer, not ${limit}`);
  }
  const now = new Date(dependencies.clock.now());
  // The limit is a parameter on purpose. The plan cache keeps a plan made during the first looks,
  // and PGlite never analyzes a table by itself to make it plan anew. With the limit a parameter
  // that plan reads the outbox through its index of pending events; with the limit written into
  // the text, the plan made while the outbox was small was a sequential scan, and a long-running
  // server's creates fell from 2,750 to 680 a second within 30 s as the outbox grew.
  const found = await takeUndispatchedEvents(database, { now, limit });
  if (found === undefined || found.pair_event_ids.length === 0) return found?.events ?? 0;
  // Deliveries to make: their ids come from the id generator, in the events' order.
  const ids = found.pair_event_ids.map(() => dependencies.newId('dlv'));
  await insertDeliveriesOfEvents(database, { ids, found, now });
  return found.events;
}

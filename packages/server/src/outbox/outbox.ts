import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { Queryable } from '../storage/database.js';

/** @internal The PostgreSQL notification channel an outbox event is announced on. */
export const OUTBOX_CHANNEL = 'followup_outbox';

/** What to announce with {@link recordOutboxEvent}. */
export interface NewOutboxEvent {
  /** The event kind, such as `contact.created`. */
  event: string;
  /** The event's `data`: for `contact.created`, the contact as the API returns it. */
  data: Record<string, unknown>;
}

/** An event as written to the outbox: the body outbound delivery will send. */
export interface OutboxEvent {
  /** `evt_…` */
  id: string;
  /** The event kind. */
  event: string;
  /** When the change happened, ISO 8601 UTC. */
  createdAt: string;
  /** The event's data. */
  data: Record<string, unknown>;
}

/**
 * @internal Writes an event into the transactional outbox (`outbox_events`). Pass the
 * transaction of the change the event announces: both commit together, or neither does, so an
 * event is never announced for a change that did not happen, nor lost for one that did.
 * Outbound delivery claims the rows later; nothing is sent here.
 */
export async function recordOutboxEvent(
  queryable: Queryable,
  event: NewOutboxEvent,
  dependencies: { clock: Clock; newId: IdGenerator },
): Promise<OutboxEvent> {
  const id = dependencies.newId('evt');
  const createdAt = new Date(dependencies.clock.now());
  await queryable.query(
    'INSERT INTO outbox_events (id, event, data, created_at) VALUES ($1, $2, $3, $4)',
    [id, event.event, JSON.stringify(event.data), createdAt],
  );
  // Delivered at commit (and dropped on rollback): wakes the delivery workers of every instance.
  await queryable.query('SELECT pg_notify($1, $2)', [OUTBOX_CHANNEL, '']);
  return { id, event: event.event, createdAt: createdAt.toISOString(), data: event.data };
}

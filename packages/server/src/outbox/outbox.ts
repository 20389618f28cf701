import type { WebhookEventKind } from '@followup/sdk';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { Queryable } from '../storage/database.js';

/** @internal The PostgreSQL notification channel an outbox event is announced on. */
export const OUTBOX_CHANNEL = 'followup_outbox';

/** What to announce with {@link recordOutboxEvent}. */
export interface NewOutboxEvent {
  /** The event kind, one of the SDK's `WEBHOOK_EVENT_KINDS`, such as `contact.created`. */
  event: WebhookEventKind;
  /** The event's `data`: for `contact.created`, the contact as the API returns it. */
  data: Record<string, unknown>;
  /** For a `*.updated` event, the former values of the fields that changed. */
  previousAttributes?: Record<string, unknown>;
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
  /** For a `*.updated` event, the former values of the fields that changed. */
  previousAttributes?: Record<string, unknown>;
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
  // One statement, one round trip: the row, and its notification, delivered at commit (dropped
  // on rollback), which wakes the delivery workers of every instance.
  await queryable.query(
    `WITH written AS (
       INSERT INTO outbox_events (id, event, data, previous_attributes, created_at)
       VALUES ($1, $2, $3, $4, $5) RETURNING id)
     SELECT pg_notify($6, '') FROM written`,
    [
      id,
      event.event,
      JSON.stringify(event.data),
      event.previousAttributes === undefined ? null : JSON.stringify(event.previousAttributes),
      createdAt,
      OUTBOX_CHANNEL,
    ],
  );
  return {
    id,
    event: event.event,
    createdAt: createdAt.toISOString(),
    data: event.data,
    ...(event.previousAttributes === undefined
      ? {}
      : { previousAttributes: event.previousAttributes }),
  };
}

/**
 * @internal The former values of exactly the fields that differ between two API objects of one
 * record (a field absent before is `null`), `updatedAt` aside; `undefined` when none differs.
 * What a `*.updated` event carries as `previousAttributes`.
 *
 * @example
 * ```ts
 * changedAttributes({ stage: 'OPEN', title: 'A' }, { stage: 'WON', title: 'A' }); // { stage: 'OPEN' }
 * ```
 */
export function changedAttributes(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const previous: Record<string, unknown> = {};
  let changed = false;
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (key === 'updatedAt') continue;
    if (JSON.stringify(before[key] ?? null) === JSON.stringify(after[key] ?? null)) continue;
    previous[key] = before[key] ?? null;
    changed = true;
  }
  return changed ? previous : undefined;
}

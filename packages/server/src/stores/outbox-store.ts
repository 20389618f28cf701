import type { WebhookEventKind } from '@followup/sdk';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { Queryable } from '../storage/database.js';
import { activeTraceparent } from '../tracing/active-trace-context.js';
import { createSqlParameters, type SqlParameters, type SqlPart, statementOf } from './sql-part.js';
import { endpointsTakingEvent } from './webhook-endpoint-store.js';

// The statements of `outbox_events` that write and announce events, and retention's delete of
// dispatched ones; the event feed's reads are in event-feed-store.ts, the fan-out's in
// fan-out-store.ts.

/** @internal The PostgreSQL notification channel an outbox event is announced on. */
export const OUTBOX_CHANNEL = 'followup_outbox';

/**
 * @internal Sends the notification that wakes the delivery workers listening on
 * {@link OUTBOX_CHANNEL}, its payload `<schema>:` so that a worker passes by another
 * deployment's (`ownSchemaOnly`). Inside a transaction it is delivered at its commit.
 */
export async function notifyOutboxListeners(queryable: Queryable): Promise<void> {
  await queryable.query(`SELECT pg_notify($1, current_schema() || ':')`, [OUTBOX_CHANNEL]);
}

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
 * Outbound delivery claims the rows later; nothing is sent here. After the commit, wake the
 * delivery workers (a route calls its `onOutboxEvent`, which `buildServer` makes tell this
 * process's worker and, through `createOutboxAnnouncer`, the other instances').
 */
export async function recordOutboxEvent(
  queryable: Queryable,
  event: NewOutboxEvent,
  dependencies: { clock: Clock; newId: IdGenerator },
): Promise<OutboxEvent> {
  const parameters = createSqlParameters();
  const part = outboxEventPart(event, dependencies, parameters);
  await queryable.query(statementOf(part), parameters.values);
  return part.event;
}

/**
 * @internal An outbox event as part of a statement (see {@link recordOutboxEvent}, and
 * `resourceCreate`, which writes it with its row and audit entry in one statement): a common table
 * expression that inserts the row, and a final `SELECT` of `pending` for a statement that has
 * nothing else to answer: `false` when no endpoint takes the event, which is then written
 * dispatched. The endpoints that take it (`endpointsTakingEvent`) are read as the row is written
 * and recorded in it, the one decision the fan-out carries out: an endpoint committed later
 * receives the events written after it, and one disabled later still receives those written
 * before, once it is enabled again. With a span active (traces on), a second common table expression keeps
 * its `traceparent` in `outbox_trace_contexts`, and `traced` is true: the part's text is one of
 * two, which a caller that keeps the text of its statement keeps apart. No notification is sent
 * in the statement (see `createOutboxAnnouncer`). Its values go to `parameters`.
 */
export function outboxEventPart(
  event: NewOutboxEvent,
  dependencies: { clock: Clock; newId: IdGenerator },
  parameters: SqlParameters,
): SqlPart & { event: OutboxEvent; traced: boolean } {
  const parameter = parameters.add;
  const id = dependencies.newId('evt');
  // An ISO string, as the parameter too: `pg` turns a Date into text the slow way.
  const createdAt = new Date(dependencies.clock.now()).toISOString();
  const kind = parameter(event.event);
  const at = parameter(createdAt);
  const data = `${parameter(JSON.stringify(event.data))}::jsonb`;
  // Typed: in an `INSERT … SELECT` a placeholder takes no type from its column.
  const values = [
    `${parameter(id)}::text`,
    `${kind}::text`,
    data,
    `${parameter(
      event.previousAttributes === undefined ? null : JSON.stringify(event.previousAttributes),
    )}::jsonb`,
    `${at}::timestamptz`,
  ];
  // The writing request's span, for the attempts' spans to join its trace (none when traces are
  // off): see the server README, "Traces". In a table of its own, not a column of the event,
  // which would make the planner read a small outbox whole (migration 32).
  const traceparent = activeTraceparent();
  const traceContext =
    traceparent === undefined
      ? ''
      : `, outbox_trace_context AS (
       INSERT INTO outbox_trace_contexts (event_id, traceparent)
       SELECT id, ${parameter(traceparent)}::text FROM outbox_event)`;
  return {
    event: {
      id,
      event: event.event,
      createdAt,
      data: event.data,
      ...(event.previousAttributes === undefined
        ? {}
        : { previousAttributes: event.previousAttributes }),
    },
    // The endpoints that take the event are decided here, once, and recorded with it: the fan-out
    // makes their deliveries. An event that no endpoint takes is written dispatched: the fan-out
    // has nothing to do for it, and the route need not wake the workers (`pending` is false).
    ctes: `outbox_event AS (
       INSERT INTO outbox_events
              (id, event, data, previous_attributes, created_at, fan_out_to, dispatched_at)
       SELECT ${values.join(', ')},
              CASE WHEN cardinality(takers.ids) > 0 THEN takers.ids END,
              CASE WHEN cardinality(takers.ids) = 0 THEN ${at}::timestamptz END
         FROM (SELECT ${endpointsTakingEvent(kind, at, data)} AS ids) AS takers
       RETURNING id, dispatched_at IS NULL AS pending)${traceContext}`,
    select: 'SELECT pending FROM outbox_event',
    traced: traceparent !== undefined,
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

/**
 * @internal Writes an event already dispatched, which the fan-out never gives to an endpoint:
 * for a delivery made by hand to one endpoint (`webhook.test`).
 */
export async function insertDispatchedEvent(
  transaction: Queryable,
  event: { id: string; event: string; data: Record<string, unknown>; now: Date },
): Promise<void> {
  const { id: eventId, now } = event;
  await transaction.query(
    `INSERT INTO outbox_events (id, event, data, created_at, dispatched_at)
       VALUES ($1, $2, $3, $4, $4)`,
    [eventId, event.event, JSON.stringify(event.data), now],
  );
}

/**
 * @internal Deletes dispatched outbox events created before `createdBefore` that no pending
 * delivery still needs; answers how many went.
 */
export async function pruneDispatchedEvents(
  database: Queryable,
  createdBefore: Date,
): Promise<number> {
  const { rowCount } = await database.query(
    `DELETE FROM outbox_events e
      WHERE e.dispatched_at IS NOT NULL AND e.created_at < $1
        AND NOT EXISTS (SELECT 1 FROM deliveries d
                         WHERE d.event_id = e.id AND d.state = 'pending')`,
    [createdBefore],
  );
  return rowCount;
}

/**
 * @internal The most undispatched events {@link readOutboxBacklog} counts: past it the count
 * stays at this number, so that a scrape costs the same however large the backlog grows.
 */
export const OUTBOX_BACKLOG_COUNT_CAP = 100_000;

/** @internal The outbox's backlog: events committed and not yet fanned out to deliveries. */
export interface OutboxBacklog {
  /** How many, up to {@link OUTBOX_BACKLOG_COUNT_CAP}. */
  pending: number;
  /** When the oldest of them was written, ISO 8601 UTC; `undefined` when there is none. */
  oldestCreatedAt: string | undefined;
}

/**
 * @internal Reads the outbox's backlog for the metrics scrape, through the partial index of
 * undispatched events: the count stops at {@link OUTBOX_BACKLOG_COUNT_CAP} and the oldest is the
 * first by commit order, so its cost does not grow with the backlog.
 */
export async function readOutboxBacklog(queryable: Queryable): Promise<OutboxBacklog> {
  const { rows } = await queryable.query<{ pending: number; oldest: string | null }>(
    `SELECT (SELECT count(*)::int FROM (SELECT 1 FROM outbox_events
                                         WHERE dispatched_at IS NULL LIMIT $1) AS capped) AS pending,
            (SELECT created_at FROM outbox_events WHERE dispatched_at IS NULL
              ORDER BY seq LIMIT 1) AS oldest`,
    [OUTBOX_BACKLOG_COUNT_CAP],
  );
  const row = rows[0];
  return { pending: row?.pending ?? 0, oldestCreatedAt: row?.oldest ?? undefined };
}

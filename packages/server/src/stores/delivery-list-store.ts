import type { Queryable } from '../storage/database.js';
import type { DeliveryRow } from './delivery-store.js';

// The reads of the webhook API's deliveries (`GET /api/deliveries` and `GET /api/deliveries/{id}`):
// keyset pages, oldest first, and what one delivery sends.

const columns = `d.id, d.event_id, ev.event, d.endpoint_id, d.state, d.attempts, d.next_attempt_at,
  d.last_status, d.last_error, d.created_at, d.delivered_at`;

/** @internal What {@link readDeliveryPage} reads; an `undefined` filter is none. */
export interface DeliveryPageRead {
  endpointId: string | undefined;
  /** Only deliveries to the endpoints of this subscriber (the subscriber portal's lists). */
  subscriber?: string | undefined;
  state: string | undefined;
  kind: string | undefined;
  /** Created at or after this time. */
  createdAfter: string | undefined;
  /** Created before this time. */
  createdBefore: string | undefined;
  /** The delivery a page starts after: its `created_at` to the microsecond, and its id. */
  after: { createdAt: string; id: string } | undefined;
  /** Rows wanted; one more is read, to tell whether another page exists. */
  limit: number;
}

/**
 * @internal Up to `limit + 1` deliveries after `after`, oldest first (`created_at, id`), with
 * their event's kind and `cursor_at` (`created_at` as text, to the microsecond).
 */
export async function readDeliveryPage(
  queryable: Queryable,
  read: DeliveryPageRead,
): Promise<(DeliveryRow & { cursor_at: string })[]> {
  const values: unknown[] = [read.limit + 1];
  const where: string[] = [];
  const add = (condition: (placeholder: string) => string, value: unknown) => {
    values.push(value);
    where.push(condition(`$${values.length}`));
  };
  if (read.endpointId !== undefined) add((p) => `d.endpoint_id = ${p}`, read.endpointId);
  if (read.subscriber !== undefined) {
    add(
      (p) =>
        `d.endpoint_id IN (SELECT we.id FROM webhook_endpoints AS we WHERE we.subscriber = ${p})`,
      read.subscriber,
    );
  }
  if (read.state !== undefined) add((p) => `d.state = ${p}`, read.state);
  if (read.kind !== undefined) add((p) => `ev.event = ${p}`, read.kind);
  if (read.createdAfter !== undefined) {
    add((p) => `d.created_at >= ${p}::timestamptz`, read.createdAfter);
  }
  if (read.createdBefore !== undefined) {
    add((p) => `d.created_at < ${p}::timestamptz`, read.createdBefore);
  }
  if (read.after !== undefined) {
    values.push(read.after.createdAt, read.after.id);
    where.push(`(d.created_at, d.id) > ($${values.length - 1}::timestamptz, $${values.length})`);
  }
  const { rows } = await queryable.query<DeliveryRow & { cursor_at: string }>(
    `SELECT ${columns}, d.created_at::text AS cursor_at
       FROM deliveries AS d JOIN outbox_events AS ev ON ev.id = d.event_id
      ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY d.created_at, d.id LIMIT $1`,
    values,
  );
  return rows;
}

/** @internal What one delivery sends: its event, and when its last attempt started. */
export interface DeliveryContentRow {
  event_created_at: string;
  data: Record<string, unknown>;
  previous_attributes: Record<string, unknown> | null;
  /** The body the delivery carries, decided when it was queued (migration 30). */
  payload: 'full' | 'thin';
  last_attempt_at: string | null;
}

/** @internal The event a delivery carries and its last attempt's start, or `undefined`. */
export async function findDeliveryContent(
  queryable: Queryable,
  id: string,
): Promise<DeliveryContentRow | undefined> {
  const { rows } = await queryable.query<DeliveryContentRow>(
    `SELECT ev.created_at AS event_created_at, ev.data, ev.previous_attributes, d.payload,
            (SELECT max(a.started_at) FROM delivery_attempts AS a WHERE a.delivery_id = d.id)
              AS last_attempt_at
       FROM deliveries AS d JOIN outbox_events AS ev ON ev.id = d.event_id
      WHERE d.id = $1`,
    [id],
  );
  return rows[0];
}

import type { Queryable } from '../storage/database.js';

// The statements of `deliveries` and `delivery_attempts` that the operator's view
// (delivery/deliveries.ts), the test event and retention send; the worker's are in
// delivery-claim-store.ts, the fan-out's in fan-out-store.ts.

/** @internal A delivery's row with its event's kind. */
export interface DeliveryRow {
  id: string;
  event_id: string;
  event: string;
  endpoint_id: string;
  state: 'pending' | 'delivered' | 'dead';
  attempts: number;
  next_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

const columns = `d.id, d.event_id, ev.event, d.endpoint_id, d.state, d.attempts, d.next_attempt_at,
  d.last_status, d.last_error, d.created_at, d.delivered_at`;

/** @internal The filters of {@link listDeliveryRows}; `null` is no filter. */
export interface DeliveryRowsRead {
  state: string | null;
  endpointId: string | null;
  limit: number;
  offset: number;
  newestFirst: boolean;
}

/** @internal Deliveries with their event's kind, filtered, in creation order. */
export async function listDeliveryRows(
  database: Queryable,
  filter: DeliveryRowsRead,
): Promise<DeliveryRow[]> {
  const order = filter.newestFirst ? 'd.created_at DESC, d.id DESC' : 'd.created_at, d.id';
  const { rows } = await database.query<DeliveryRow>(
    `SELECT ${columns} FROM deliveries AS d JOIN outbox_events AS ev ON ev.id = d.event_id
          WHERE ($1::text IS NULL OR d.state = $1) AND ($3::text IS NULL OR d.endpoint_id = $3)
          ORDER BY ${order} LIMIT $2 OFFSET $4`,
    [filter.state, filter.limit, filter.endpointId, filter.offset],
  );
  return rows;
}

/** @internal The delivery with this id, or `undefined`. */
export async function findDeliveryRow(
  database: Queryable,
  id: string,
): Promise<DeliveryRow | undefined> {
  const { rows } = await database.query<DeliveryRow>(
    `SELECT ${columns} FROM deliveries AS d JOIN outbox_events AS ev ON ev.id = d.event_id
          WHERE d.id = $1`,
    [id],
  );
  return rows[0];
}

/** @internal An attempt's row. */
export interface DeliveryAttemptRow {
  started_at: string;
  duration_ms: number;
  status: number | null;
  error: string | null;
  response_excerpt: Uint8Array | null;
}

/** @internal The first 1,000 attempts of a delivery, oldest first. */
export async function listDeliveryAttemptRows(
  database: Queryable,
  id: string,
): Promise<DeliveryAttemptRow[]> {
  const { rows } = await database.query<DeliveryAttemptRow>(
    `SELECT started_at, duration_ms, status, error, response_excerpt FROM delivery_attempts
          WHERE delivery_id = $1 ORDER BY seq LIMIT 1000`,
    [id],
  );
  return rows;
}

/**
 * @internal Makes a delivery due at `now`, whatever its state, or only when it is not delivered
 * (`exceptDelivered`); answers it with the state it had before (`previous_state`), or
 * `undefined` when no delivery has this id or it was left as it was.
 */
export async function makeDeliveryDue(
  transaction: Queryable,
  due: { id: string; now: Date; exceptDelivered?: boolean },
): Promise<(DeliveryRow & { previous_state: DeliveryRow['state'] }) | undefined> {
  const { id, now } = due;
  // UPDATE … RETURNING sees the new row only: the state before comes from a locked read of it.
  const { rows } = await transaction.query<DeliveryRow & { previous_state: DeliveryRow['state'] }>(
    `WITH before AS (SELECT id, state FROM deliveries WHERE id = $1 FOR UPDATE),
          updated AS (
             UPDATE deliveries AS u
                SET state = 'pending', next_attempt_at = $2, lease_until = NULL
               FROM before
              WHERE u.id = before.id AND NOT ($3::boolean AND before.state = 'delivered')
             RETURNING u.*, before.state AS previous_state)
     SELECT ${columns}, d.previous_state
       FROM updated AS d JOIN outbox_events AS ev ON ev.id = d.event_id`,
    [id, now, due.exceptDelivered === true],
  );
  return rows[0];
}

/**
 * @internal Makes every failed delivery of an endpoint created at or after `since` due at
 * `now` (the dead ones, and the pending ones with an attempt); answers them, oldest first. Only
 * an event's latest delivery to the endpoint: one a replay superseded with a new delivery is
 * passed by, so that the event is not sent twice.
 */
export async function makeFailedDeliveriesDue(
  transaction: Queryable,
  recover: { endpointId: string; since: Date; now: Date },
): Promise<DeliveryRow[]> {
  const { rows } = await transaction.query<DeliveryRow>(
    `WITH updated AS (
             UPDATE deliveries SET state = 'pending', next_attempt_at = $3, lease_until = NULL
              WHERE endpoint_id = $1 AND created_at >= $2
                AND (state = 'dead' OR (state = 'pending' AND attempts > 0))
                AND NOT EXISTS (
                      SELECT FROM deliveries AS later
                       WHERE later.event_id = deliveries.event_id
                         AND later.endpoint_id = deliveries.endpoint_id
                         AND (later.created_at, later.id) > (deliveries.created_at, deliveries.id))
             RETURNING *)
           SELECT ${columns} FROM updated AS d JOIN outbox_events AS ev ON ev.id = d.event_id
            ORDER BY d.created_at, d.id`,
    [recover.endpointId, recover.since, recover.now],
  );
  return rows;
}

/**
 * @internal Queues a delivery of the event `eventId` to one endpoint, due at `now`, with the
 * body the endpoint takes now (its `payload`, full or thin: kept for every attempt). Nothing is
 * queued when the endpoint is gone.
 */
export async function insertDelivery(
  transaction: Queryable,
  delivery: { id: string; eventId: string; endpointId: string; now: Date },
): Promise<void> {
  const { id: deliveryId, eventId, endpointId, now } = delivery;
  await transaction.query(
    `INSERT INTO deliveries
            (id, event_id, endpoint_id, state, attempts, next_attempt_at, created_at, payload)
       SELECT $1, $2, endpoint.id, 'pending', 0, $4, $4, endpoint.payload
         FROM webhook_endpoints AS endpoint WHERE endpoint.id = $3`,
    [deliveryId, eventId, endpointId, now],
  );
}

/**
 * @internal Deletes finished deliveries (delivered or dead) created before `createdBefore`,
 * with their attempts; answers how many of each went.
 */
export async function pruneFinishedDeliveries(
  database: Queryable,
  createdBefore: Date,
): Promise<{ deliveries: number; attempts: number }> {
  // Attempts go with their delivery (ON DELETE CASCADE); the statement's snapshot counts them.
  const { rows } = await database.query<{ deliveries: number; attempts: number }>(
    `WITH gone AS (
       DELETE FROM deliveries
        WHERE state IN ('delivered', 'dead') AND created_at < $1
       RETURNING id)
     SELECT (SELECT count(*) FROM gone)::int AS deliveries,
            (SELECT count(*) FROM delivery_attempts
              WHERE delivery_id IN (SELECT id FROM gone))::int AS attempts`,
    [createdBefore],
  );
  return { deliveries: rows[0]?.deliveries ?? 0, attempts: rows[0]?.attempts ?? 0 };
}

import type { Queryable } from '../storage/database.js';

// The delivery worker's statements (delivery/delivery-worker.ts): claim due deliveries under a
// lease, record an attempt and its outcome, and say when the next one is due.

/** @internal A claimed delivery with its event and its endpoint's URL and secrets. */
export interface ClaimedRow {
  id: string;
  endpoint_id: string;
  attempts: number;
  lease_until: string;
  event: string;
  event_id: string;
  event_created_at: string;
  data: Record<string, unknown>;
  previous_attributes: Record<string, unknown> | null;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
}

/** @internal What {@link claimDueDeliveries} needs to know. */
export interface DeliveryClaim {
  /** The time due dates and leases are compared with. */
  now: number;
  /** How long the claimed deliveries stay with this worker, in milliseconds. */
  leaseMs: number;
  /** The most deliveries to claim. */
  limit: number;
  /** The most attempts in flight per endpoint. */
  endpointConcurrency: number;
  /** The endpoints this worker has attempts in flight to, and how many. */
  busyEndpoints: string[];
  /** How many attempts to each of `busyEndpoints` are in flight. */
  busyCounts: number[];
}

/**
 * @internal Due deliveries, at most `endpointConcurrency` of this worker's attempts in flight per
 * endpoint: the first due ones are ranked per endpoint, the ones this worker already runs
 * counted, and the rest locked with `SKIP LOCKED`; each is leased until `now + leaseMs`.
 */
export async function claimDueDeliveries(
  database: Queryable,
  claim: DeliveryClaim,
): Promise<ClaimedRow[]> {
  const { now, leaseMs, limit, endpointConcurrency, busyEndpoints, busyCounts } = claim;
  const { rows } = await database.query<ClaimedRow>(
    // The ranking is a CTE of its own, computed once: as a subquery under `IN`, PGlite (which
    // never analyzes a table, so it plans for a handful of rows) ran it again for every due
    // delivery, 15 ms a claim with a thousand waiting.
    `WITH ranked AS MATERIALIZED (
         SELECT ranked.id FROM (
           SELECT first.id,
                  row_number() OVER (PARTITION BY first.endpoint_id
                                     ORDER BY first.next_attempt_at, first.id) AS rank,
                  coalesce(busy.n, 0) AS busy
             FROM (SELECT due.id, due.endpoint_id, due.next_attempt_at
                     FROM deliveries AS due
                     JOIN webhook_endpoints AS endpoint ON endpoint.id = due.endpoint_id
                    WHERE due.state = 'pending' AND endpoint.state = 'active'
                      AND due.next_attempt_at <= $1
                      AND (due.lease_until IS NULL OR due.lease_until <= $1)
                    ORDER BY due.next_attempt_at, due.id
                    LIMIT $3 * 4) AS first
             LEFT JOIN unnest($5::text[], $6::int[]) AS busy (endpoint_id, n)
               ON busy.endpoint_id = first.endpoint_id) AS ranked
          WHERE ranked.rank + ranked.busy <= $4)
       UPDATE deliveries AS d SET lease_until = $2
         FROM (SELECT candidate.id FROM ranked
                 JOIN deliveries AS candidate ON candidate.id = ranked.id
                -- Again on the row itself: a row another worker claimed and committed while
                -- this one waited for its lock is read anew here and skipped (the ranking
                -- above comes from the older snapshot).
                WHERE candidate.state = 'pending' AND candidate.next_attempt_at <= $1
                  AND (candidate.lease_until IS NULL OR candidate.lease_until <= $1)
                ORDER BY candidate.next_attempt_at, candidate.id
                LIMIT $3
                FOR UPDATE OF candidate SKIP LOCKED) AS due,
              outbox_events AS ev, webhook_endpoints AS e
        WHERE d.id = due.id AND ev.id = d.event_id AND e.id = d.endpoint_id
       RETURNING d.id, d.endpoint_id, d.attempts, d.lease_until, ev.event, ev.id AS event_id,
                 ev.created_at AS event_created_at, ev.data, ev.previous_attributes, e.url,
                 e.secret, e.previous_secret, e.previous_secret_until`,
    [new Date(now), new Date(now + leaseMs), limit, endpointConcurrency, busyEndpoints, busyCounts],
  );
  return rows;
}

/** @internal One attempt of a delivery, as recorded. */
export interface DeliveryAttemptRecord {
  deliveryId: string;
  startedAt: Date;
  durationMs: number;
  status: number | null;
  error: string | null;
  responseExcerpt: Uint8Array | null;
}

/** @internal Records one attempt of a delivery. */
export async function insertDeliveryAttempt(
  transaction: Queryable,
  attempt: DeliveryAttemptRecord,
): Promise<void> {
  await transaction.query(
    `INSERT INTO delivery_attempts
           (delivery_id, started_at, duration_ms, status, error, response_excerpt)
         VALUES ($1, $2, $3, $4, $5, $6)`,
    [
      attempt.deliveryId,
      attempt.startedAt,
      attempt.durationMs,
      attempt.status,
      attempt.error,
      attempt.responseExcerpt,
    ],
  );
}

/** @internal A delivery's state after an attempt. */
export interface DeliveryOutcome {
  id: string;
  /** The lease the attempt was made under. */
  leaseUntil: string;
  state: 'delivered' | 'pending' | 'dead';
  /** When the next attempt is due, or `null`. */
  nextAttemptAt: Date | null;
  status: number | null;
  error: string | null;
  now: Date;
}

/**
 * @internal Counts an attempt on its delivery and sets its state, only while the worker still
 * holds the lease it made the attempt under: one that ran out may be another's now.
 */
export async function recordDeliveryOutcome(
  transaction: Queryable,
  outcome: DeliveryOutcome,
): Promise<void> {
  await transaction.query(
    `UPDATE deliveries
            SET attempts = attempts + 1, state = $3, lease_until = NULL,
                next_attempt_at = $4, last_status = $5, last_error = $6,
                delivered_at = CASE WHEN $3 = 'delivered' THEN $7::timestamptz ELSE delivered_at END
          WHERE id = $1 AND lease_until = $2`,
    [
      outcome.id,
      outcome.leaseUntil,
      outcome.state,
      outcome.nextAttemptAt,
      outcome.status,
      outcome.error,
      outcome.now,
    ],
  );
}

/**
 * @internal When the next pending delivery to an active endpoint is due (its next attempt, or
 * the end of its lease), the endpoints `passedBy` left out; `undefined` when none is pending.
 */
export async function nextDeliveryDueAt(
  database: Queryable,
  passedBy: string[],
): Promise<number | undefined> {
  const saturated = passedBy;
  const { rows } = await database.query<{ due: string | null }>(
    `SELECT min(greatest(d.next_attempt_at, coalesce(d.lease_until, d.next_attempt_at))) AS due
         FROM deliveries AS d JOIN webhook_endpoints AS e ON e.id = d.endpoint_id
        WHERE d.state = 'pending' AND e.state = 'active' AND NOT (d.endpoint_id = ANY($1::text[]))`,
    [saturated],
  );
  const dueAt = rows[0]?.due;
  return dueAt === null || dueAt === undefined ? undefined : Date.parse(dueAt);
}

/**
 * @internal How much work is waiting at `now`: undispatched events and due deliveries to active
 * endpoints.
 */
export async function countDueWork(database: Queryable, now: Date): Promise<number> {
  const { rows } = await database.query<{ count: number }>(
    `SELECT (SELECT count(*)::int FROM outbox_events WHERE dispatched_at IS NULL) +
              (SELECT count(*)::int FROM deliveries AS d
                 JOIN webhook_endpoints AS e ON e.id = d.endpoint_id
                WHERE d.state = 'pending' AND e.state = 'active' AND d.next_attempt_at <= $1
                  AND (d.lease_until IS NULL OR d.lease_until <= $1)) AS count`,
    [now],
  );
  return rows[0]?.count ?? 0;
}

import type { Queryable } from '../storage/database.js';
import { planEachRun } from '../storage/statement-cache.js';

// What the delivery worker writes after its attempts (delivery/attempt-recorder.ts): the attempts
// and the deliveries' new states, for every attempt of a batch in one statement each, so that
// the work per attempt does not grow with the number of statements of a transaction; a batch of
// successes to endpoints in good health, the usual one, in a single statement.

/** @internal One attempt of a delivery, as recorded. */
export interface DeliveryAttemptRecord {
  deliveryId: string;
  startedAt: Date;
  durationMs: number;
  status: number | null;
  error: string | null;
  responseExcerpt: Uint8Array | null;
}

/** The statement's arrays of {@link insertDeliveryAttempts}, `$1` to `$6`. */
function attemptParameters(attempts: readonly DeliveryAttemptRecord[]): unknown[] {
  return [
    attempts.map((attempt) => attempt.deliveryId),
    attempts.map((attempt) => attempt.startedAt.toISOString()),
    attempts.map((attempt) => attempt.durationMs),
    attempts.map((attempt) => attempt.status),
    attempts.map((attempt) => attempt.error),
    // The excerpts travel as hex text: an array of byte strings has no portable text form.
    attempts.map((attempt) =>
      attempt.responseExcerpt === null
        ? null
        : Buffer.from(attempt.responseExcerpt).toString('hex'),
    ),
  ];
}

/** @internal Records attempts of deliveries, in one statement. */
export async function insertDeliveryAttempts(
  transaction: Queryable,
  attempts: readonly DeliveryAttemptRecord[],
): Promise<void> {
  if (attempts.length === 0) return;
  await transaction.query(
    `INSERT INTO delivery_attempts
           (delivery_id, started_at, duration_ms, status, error, response_excerpt)
     SELECT a.delivery_id, a.started_at, a.duration_ms, a.status, a.error,
            decode(a.response_excerpt, 'hex')
       FROM unnest($1::text[], $2::timestamptz[], $3::int[], $4::int[], $5::text[], $6::text[])
            WITH ORDINALITY
            AS a (delivery_id, started_at, duration_ms, status, error, response_excerpt, n)
      ORDER BY a.n`,
    attemptParameters(attempts),
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
 * @internal The statement of {@link recordDeliveryOutcomes} (exported for the test that explains
 * its plan): the batch's deliveries read by their key, whatever the number of others. The
 * `ANY` says so to a planner without statistics (PGlite never analyzes): joined to the
 * `unnest` alone, it read `deliveries` whole for each batch, a cost that grew with the table.
 * Planned on each run ({@link planEachRun}): a plan kept from when the table was small reads it
 * whole, by a hash join, however large it has grown since.
 */
export const RECORD_DELIVERY_OUTCOMES = planEachRun(`UPDATE deliveries AS d
        SET attempts = d.attempts + 1, state = o.state, lease_until = NULL,
            next_attempt_at = o.next_attempt_at, last_status = o.status, last_error = o.error,
            delivered_at = CASE WHEN o.state = 'delivered' THEN o.now ELSE d.delivered_at END
       FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::timestamptz[], $5::int[],
                   $6::text[], $7::timestamptz[])
            AS o (id, lease_until, state, next_attempt_at, status, error, now)
      WHERE d.id = ANY ($1::text[]) AND d.id = o.id AND d.lease_until = o.lease_until`);

/**
 * @internal Counts an attempt on each delivery and sets its state, in one statement, only while
 * the worker still holds the lease it made the attempt under: one that ran out may be another's
 * now. A batch holds at most one attempt of a delivery (a delivery is attempted again only after
 * its outcome is recorded).
 */
export async function recordDeliveryOutcomes(
  transaction: Queryable,
  outcomes: readonly DeliveryOutcome[],
): Promise<void> {
  if (outcomes.length === 0) return;
  await transaction.query(RECORD_DELIVERY_OUTCOMES, outcomeParameters(outcomes));
}

/** The statement's arrays of {@link recordDeliveryOutcomes}, `$1` to `$7`. */
function outcomeParameters(outcomes: readonly DeliveryOutcome[]): unknown[] {
  return [
    outcomes.map((outcome) => outcome.id),
    outcomes.map((outcome) => outcome.leaseUntil),
    outcomes.map((outcome) => outcome.state),
    outcomes.map((outcome) => outcome.nextAttemptAt?.toISOString() ?? null),
    outcomes.map((outcome) => outcome.status),
    outcomes.map((outcome) => outcome.error),
    outcomes.map((outcome) => outcome.now.toISOString()),
  ];
}

/**
 * @internal The statement of {@link recordDeliveredBatch}: the attempts inserted and the
 * outcomes written as {@link insertDeliveryAttempts} and {@link RECORD_DELIVERY_OUTCOMES} do, in
 * one statement, unless an endpoint of the batch (`$14`) is in a run of failures; answers
 * whether it wrote them.
 */
export const RECORD_DELIVERED_BATCH = planEachRun(`WITH failing AS (
       SELECT 1 FROM webhook_endpoints WHERE id = ANY ($14::text[]) AND failing_since IS NOT NULL
        LIMIT 1),
     attempts AS (
       INSERT INTO delivery_attempts
              (delivery_id, started_at, duration_ms, status, error, response_excerpt)
       SELECT a.delivery_id, a.started_at, a.duration_ms, a.status, a.error,
              decode(a.response_excerpt, 'hex')
         FROM unnest($1::text[], $2::timestamptz[], $3::int[], $4::int[], $5::text[], $6::text[])
              WITH ORDINALITY
              AS a (delivery_id, started_at, duration_ms, status, error, response_excerpt, n)
        WHERE NOT EXISTS (SELECT FROM failing)
        ORDER BY a.n),
     outcomes AS (
       UPDATE deliveries AS d
          SET attempts = d.attempts + 1, state = o.state, lease_until = NULL,
              next_attempt_at = o.next_attempt_at, last_status = o.status, last_error = o.error,
              delivered_at = CASE WHEN o.state = 'delivered' THEN o.now ELSE d.delivered_at END
         FROM unnest($7::text[], $8::timestamptz[], $9::text[], $10::timestamptz[], $11::int[],
                     $12::text[], $13::timestamptz[])
              AS o (id, lease_until, state, next_attempt_at, status, error, now)
        WHERE NOT EXISTS (SELECT FROM failing)
          AND d.id = ANY ($7::text[]) AND d.id = o.id AND d.lease_until = o.lease_until)
SELECT NOT EXISTS (SELECT FROM failing) AS recorded`);

/**
 * @internal Records a batch of delivered attempts in one statement, committed on its own: the
 * attempts, and the deliveries' outcomes under their leases. A success changes an endpoint's
 * health only by ending a run of failures, so while none of the batch's endpoints is in one,
 * there is nothing else to write, and a busy worker commits once a batch in one round trip
 * instead of a transaction of a statement per endpoint. Answers `false`, having written
 * nothing, when one of them is in a run: the caller records the batch in a transaction that
 * ends the run, with its `endpoint.recovered` event.
 */
export async function recordDeliveredBatch(
  database: Queryable,
  batch: {
    attempts: readonly DeliveryAttemptRecord[];
    outcomes: readonly DeliveryOutcome[];
    /** The endpoints the attempts went to. */
    endpointIds: readonly string[];
  },
): Promise<boolean> {
  const { rows } = await database.query<{ recorded: boolean }>(RECORD_DELIVERED_BATCH, [
    ...attemptParameters(batch.attempts),
    ...outcomeParameters(batch.outcomes),
    [...new Set(batch.endpointIds)],
  ]);
  return rows[0]?.recorded === true;
}

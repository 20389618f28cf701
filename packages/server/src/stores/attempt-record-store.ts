import { bookkeepingWrite } from '../storage/bookkeeping-writes.js';
import type { Queryable } from '../storage/database.js';
import { replannedAsTablesGrow } from '../storage/statement-cache.js';

// What the delivery worker writes after its attempts (delivery/attempt-recorder.ts): the attempts
// and the deliveries' new states, for every attempt of a batch in one statement, so that the work
// per attempt does not grow with the number of statements of a transaction.

/** @internal One attempt of a delivery, as recorded. */
export interface DeliveryAttemptRecord {
  deliveryId: string;
  startedAt: Date;
  durationMs: number;
  status: number | null;
  error: string | null;
  responseExcerpt: Uint8Array | null;
}

/** The attempts' arrays of {@link RECORD_ATTEMPT_BATCH}, `$1` to `$6`. */
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

/** The outcomes' arrays of {@link RECORD_ATTEMPT_BATCH}, `$7` to `$13`. */
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
 * @internal The statement of {@link recordAttemptBatch} (exported for the test that explains its
 * plan): inserts the attempts and updates the deliveries' outcomes, unless an endpoint named in
 * `$14` is in a run of failures; answers whether it wrote them. The outcomes' deliveries are read
 * by their key, whatever the number of others: the `ANY` says so to a planner without
 * statistics (PGlite never analyzes), which, given the `unnest` alone, read `deliveries` whole
 * for each batch, a cost that grew with the table. Planned again as its tables grow
 * ({@link replannedAsTablesGrow}): a plan kept from when the table was small reads it whole, by a
 * hash join, however large it has grown since. A {@link bookkeepingWrite}: lost in a crash, the
 * deliveries are attempted again once their leases run out (sent twice, never lost).
 */
export const RECORD_ATTEMPT_BATCH = bookkeepingWrite(
  replannedAsTablesGrow(`WITH failing AS (
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
SELECT NOT EXISTS (SELECT FROM failing) AS recorded`),
);

/**
 * @internal Records a batch of attempts in one statement: the attempts, and each delivery's
 * outcome, counted and set only while the worker still holds the lease it made the attempt
 * under (one that ran out may be another's now). A batch holds at most one attempt of a delivery
 * (a delivery is attempted again only after its outcome is recorded).
 *
 * With `unlessFailing`, it writes nothing and answers `false` when one of those endpoints is in a
 * run of failures. A success changes an endpoint's health only by ending such a run, so a batch
 * of successes to endpoints in good health, a busy worker's usual one, has nothing else to write
 * and commits on its own in one round trip; the caller records any other batch in a transaction
 * that writes the endpoints' health first, then calls this without `unlessFailing`.
 */
export async function recordAttemptBatch(
  database: Queryable,
  batch: {
    attempts: readonly DeliveryAttemptRecord[];
    outcomes: readonly DeliveryOutcome[];
    /** Endpoints none of which may be in a run of failures for the batch to be written. */
    unlessFailing?: readonly string[];
  },
): Promise<boolean> {
  const { rows } = await database.query<{ recorded: boolean }>(RECORD_ATTEMPT_BATCH, [
    ...attemptParameters(batch.attempts),
    ...outcomeParameters(batch.outcomes),
    [...new Set(batch.unlessFailing ?? [])],
  ]);
  return rows[0]?.recorded === true;
}

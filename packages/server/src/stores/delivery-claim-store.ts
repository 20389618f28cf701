import type { Queryable } from '../storage/database.js';
import { replannedAsTablesGrow } from '../storage/statement-cache.js';

// The delivery worker's statements (delivery/delivery-worker.ts): claim due deliveries under a
// lease and say when the next one is due. Attempts are recorded by attempt-record-store.ts.

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
  /**
   * The `traceparent` of the request that wrote the event, if traces were on then (from
   * `outbox_trace_contexts`).
   */
  trace_context: string | null;
  /** The body the delivery carries, decided when it was queued (migration 30). */
  payload: 'full' | 'thin';
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
  /** The endpoint's `timeoutSeconds`: each attempt to it is ended after this many seconds. */
  timeout_seconds: number;
  /** The endpoint's static headers, sent with each attempt (never logged). */
  headers: Record<string, string>;
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
 * @internal The claim's statement (exported for the test that explains its plan): for each
 * active endpoint, its first due deliveries, as many as it has slots free (`$4` less this
 * worker's attempts in flight to it, `$5` and `$6`), read from the head of its part of
 * `deliveries_endpoint_due` and locked with `SKIP LOCKED` there; then the first of every
 * endpoint, the second of every endpoint…, oldest first within each round, up to `$3` in all,
 * leased until `$2`. A rate-limited endpoint gives at most the whole tokens of its bucket
 * (`budget`, refilled to `$1`), and the claim writes back what it left (`spent`): the budget is
 * the database's, shared by every instance. Its cost is the endpoints' count and the rows it returns, not the backlog: a
 * ranking of every due delivery (what this replaced) read the whole backlog at every claim, and
 * let one endpoint's backlog hold the others' deliveries back. Planned again as
 * its tables grow ({@link replannedAsTablesGrow}): the plan kept from a claim among a few hundred
 * deliveries cost twice as much once tens of thousands were written.
 */
export const CLAIM_DUE_DELIVERIES = replannedAsTablesGrow(`WITH budget AS (
       -- Each rate-limited active endpoint's token bucket refilled to now: rate_limit a second
       -- since it was last spent, up to twice rate_limit (the burst); NULL is full. Locked until
       -- this claim commits, in id order so that two claims never wait on each other in a
       -- cycle: another instance's claim waits here and then reads what this one left. NO KEY
       -- UPDATE lets deliveries referencing the endpoint be written meanwhile.
       SELECT endpoint.id AS endpoint_id,
              least(2 * endpoint.rate_limit,
                    coalesce(endpoint.rate_tokens, 2 * endpoint.rate_limit)
                    + endpoint.rate_limit * greatest(0, extract(epoch FROM
                        $1 - coalesce(endpoint.rate_refilled_at, $1)))) AS tokens
         FROM webhook_endpoints AS endpoint
        WHERE endpoint.state = 'active' AND endpoint.rate_limit IS NOT NULL
        ORDER BY endpoint.id
          FOR NO KEY UPDATE),
     due AS (
       SELECT first.id, first.endpoint_id, first.next_attempt_at, endpoint.url, endpoint.secret,
              endpoint.previous_secret, endpoint.previous_secret_until, endpoint.timeout_seconds,
              endpoint.headers
         FROM webhook_endpoints AS endpoint
         LEFT JOIN unnest($5::text[], $6::int[]) AS busy (endpoint_id, n)
           ON busy.endpoint_id = endpoint.id
         LEFT JOIN budget ON budget.endpoint_id = endpoint.id
        CROSS JOIN LATERAL (
          SELECT candidate.id, candidate.endpoint_id, candidate.next_attempt_at
            FROM deliveries AS candidate
           -- Pending: a next attempt is set (deliveries_pending_has_next_attempt), due by now.
           WHERE candidate.endpoint_id = endpoint.id AND candidate.next_attempt_at <= $1
             AND (candidate.lease_until IS NULL OR candidate.lease_until <= $1)
           ORDER BY candidate.next_attempt_at, candidate.id
           -- As many as it has free slots and, when rate-limited, whole tokens.
           LIMIT greatest(0, least($4 - coalesce(busy.n, 0), $3,
                                   coalesce(floor(budget.tokens)::int, $3)))
           -- A row another worker claimed and committed after this statement began is read
           -- anew when locked, and passed by: its lease is no longer over.
           FOR UPDATE OF candidate SKIP LOCKED) AS first
        WHERE endpoint.state = 'active'),
     chosen AS (
       SELECT * FROM (
         SELECT due.*, row_number() OVER (PARTITION BY due.endpoint_id
                                          ORDER BY due.next_attempt_at, due.id) AS round
           FROM due) AS ranked
        ORDER BY ranked.round, ranked.next_attempt_at, ranked.id
        LIMIT $3),
     spent AS (
       -- What is left of each bucket this claim took from, as of now; one it took nothing from
       -- is left as it was (its refill is a function of the time).
       UPDATE webhook_endpoints AS endpoint
          SET rate_tokens = budget.tokens - taken.n,
              rate_refilled_at = greatest($1, coalesce(endpoint.rate_refilled_at, $1))
         FROM budget
         JOIN (SELECT endpoint_id, count(*) AS n FROM chosen GROUP BY endpoint_id) AS taken
           ON taken.endpoint_id = budget.endpoint_id
        WHERE endpoint.id = budget.endpoint_id)
     UPDATE deliveries AS d SET lease_until = $2
       FROM chosen, outbox_events AS ev
      WHERE d.id = chosen.id AND ev.id = d.event_id
     RETURNING d.id, d.endpoint_id, d.attempts, d.lease_until, ev.event, ev.id AS event_id,
               ev.created_at AS event_created_at, ev.data, ev.previous_attributes,
               -- By primary key, one row or none (migration 32): its event's trace context.
               (SELECT t.traceparent FROM outbox_trace_contexts AS t
                 WHERE t.event_id = ev.id) AS trace_context,
               d.payload, chosen.url,
               chosen.secret, chosen.previous_secret, chosen.previous_secret_until,
               chosen.timeout_seconds, chosen.headers`);

/** @internal The values of {@link CLAIM_DUE_DELIVERIES} for a claim. */
export function claimParameters(claim: DeliveryClaim): unknown[] {
  const { now, leaseMs, limit, endpointConcurrency, busyEndpoints, busyCounts } = claim;
  return [
    new Date(now),
    new Date(now + leaseMs),
    limit,
    endpointConcurrency,
    busyEndpoints,
    busyCounts,
  ];
}

/**
 * @internal Due deliveries, at most `endpointConcurrency` of this worker's attempts in flight per
 * endpoint and `limit` in all, shared out between the endpoints in turns, each leased until
 * `now + leaseMs` (see {@link CLAIM_DUE_DELIVERIES}).
 */
export async function claimDueDeliveries(
  database: Queryable,
  claim: DeliveryClaim,
): Promise<ClaimedRow[]> {
  const { rows } = await database.query<ClaimedRow>(CLAIM_DUE_DELIVERIES, claimParameters(claim));
  return rows;
}

/**
 * @internal The statement of {@link nextDeliveryDueAt} (exported for the test that explains its
 * plan). Per active endpoint, the head of its part of `deliveries_endpoint_due`, its first
 * 32 pending deliveries in due order (for a rate-limited endpoint, not before its bucket holds a
 * whole token again): a delivery is due at its next attempt or,
 * while leased, at its lease's end, never sooner than its next attempt; so once the head holds
 * one under no lease, nothing further on is due sooner. The head is the attempts in flight and
 * the next one, however many wait. With more attempts in flight to one endpoint than that (from
 * every instance together) the answer may come late, by the poll interval at most.
 */
export const NEXT_DELIVERY_DUE = `SELECT min(CASE
         -- A rate-limited endpoint's next delivery waits for a whole token too.
         WHEN endpoint.rate_limit IS NULL OR endpoint.rate_tokens IS NULL
              OR endpoint.rate_tokens >= 1 THEN head.due
         ELSE greatest(head.due, endpoint.rate_refilled_at
                       + (1 - endpoint.rate_tokens) / endpoint.rate_limit * interval '1 second')
         END) AS due
       FROM webhook_endpoints AS endpoint
      CROSS JOIN LATERAL (
        -- Pending: a next attempt is set (deliveries_pending_has_next_attempt).
        SELECT greatest(d.next_attempt_at, coalesce(d.lease_until, d.next_attempt_at)) AS due
          FROM deliveries AS d
         WHERE d.endpoint_id = endpoint.id AND d.next_attempt_at IS NOT NULL
         -- The head's size through the endpoint's row, as the claim's limit is: a limit the
         -- planner cannot fold to a constant makes it plan to read the first rows of the index;
         -- with 32 in view and few rows expected (PGlite, without statistics), it gathered the
         -- endpoint's every pending delivery and sorted them.
         ORDER BY d.next_attempt_at, d.id LIMIT 32 + 0 * length(endpoint.id)) AS head
      WHERE endpoint.state = 'active' AND NOT (endpoint.id = ANY ($1::text[]))`;

/**
 * @internal When the next pending delivery to an active endpoint is due (its next attempt, or
 * the end of its lease), the endpoints `passedBy` left out; `undefined` when none is pending.
 */
export async function nextDeliveryDueAt(
  database: Queryable,
  passedBy: string[],
): Promise<number | undefined> {
  const { rows } = await database.query<{ due: string | null }>(NEXT_DELIVERY_DUE, [passedBy]);
  const dueAt = rows[0]?.due;
  return dueAt === null || dueAt === undefined ? undefined : Date.parse(dueAt);
}

/**
 * @internal How much work is waiting at `now`: undispatched events and due deliveries to active
 * endpoints, less those an endpoint's rate limit holds back.
 */
export async function countDueWork(database: Queryable, now: Date): Promise<number> {
  const { rows } = await database.query<{ count: number }>(
    `SELECT (SELECT count(*)::int FROM outbox_events WHERE dispatched_at IS NULL) +
              (SELECT count(*)::int FROM deliveries AS d
                 JOIN webhook_endpoints AS e ON e.id = d.endpoint_id
                WHERE d.state = 'pending' AND e.state = 'active' AND d.next_attempt_at <= $1
                  AND (d.lease_until IS NULL OR d.lease_until <= $1)
                  -- Held back by its endpoint's rate limit: not due until a token is.
                  AND (e.rate_limit IS NULL OR e.rate_tokens IS NULL
                       OR e.rate_tokens + e.rate_limit * extract(epoch FROM
                            $1 - e.rate_refilled_at) >= 1)) AS count`,
    [now],
  );
  return rows[0]?.count ?? 0;
}

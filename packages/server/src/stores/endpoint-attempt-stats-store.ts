import type { Queryable } from '../storage/database.js';
import { HOUR_MS, OVERVIEW_HOURS } from './overview-store.js';

// How endpoints' delivery attempts went over a recent period: the console's figures of one
// endpoint (its page) and of every endpoint (the overview). Each reads the period's attempts
// through `delivery_attempts_started_at` (migration 36) and looks up each attempt's delivery by
// its key, so that it costs the period's attempts, not the 30 days of attempts and deliveries
// kept.

/** @internal How an endpoint's attempts went over a period. */
export interface EndpointAttemptCounts {
  /** Attempts started in the period. */
  attempts: number;
  /** Of them, those the receiver answered with a 2xx status. */
  succeeded: number;
}

/**
 * @internal The statement {@link countEndpointAttempts} runs: `$1` the endpoint's id, `$2` and
 * `$3` the period's start and end. It reads the period's attempts through
 * `delivery_attempts_started_at` (migration 36), each one's endpoint looked up by its delivery's
 * key, as the overview's statements do: the period's attempts, not every delivery the endpoint
 * has kept, nor (as a planner without statistics, PGlite's, chose with an open-ended period)
 * every attempt.
 */
export const COUNT_ENDPOINT_ATTEMPTS = `SELECT count(*)::int AS attempts,
            count(*) FILTER (WHERE a.status BETWEEN 200 AND 299)::int AS succeeded
       FROM delivery_attempts AS a
      WHERE a.started_at >= $2 AND a.started_at <= $3
        AND (SELECT d.endpoint_id FROM deliveries AS d WHERE d.id = a.delivery_id) = $1`;

/**
 * @internal The attempts of an endpoint's deliveries started from `since` to `until`, and how many
 * of them succeeded (a 2xx answer, as the worker counts a success): the endpoint page's success
 * rate.
 */
export async function countEndpointAttempts(
  queryable: Queryable,
  read: { endpointId: string; since: Date; until: Date },
): Promise<EndpointAttemptCounts> {
  const { rows } = await queryable.query<EndpointAttemptCounts>(COUNT_ENDPOINT_ATTEMPTS, [
    read.endpointId,
    read.since,
    read.until,
  ]);
  return rows[0] ?? { attempts: 0, succeeded: 0 };
}

/** @internal One endpoint's delivery health over the last {@link OVERVIEW_HOURS} hours. */
export interface EndpointHealth {
  id: string;
  url: string;
  state: 'active' | 'disabled';
  disabledReason: 'gone' | 'failing' | null;
  /** Since when every attempt failed, ISO 8601 UTC, or `null`. */
  failingSince: string | null;
  /** The endpoint's last change (for a disabled one: when it was disabled, at the latest). */
  updatedAt: string;
  /** Attempts started in the period. */
  attempts: number;
  /** Of them, answered 2xx. */
  succeeded: number;
  /** The 95th percentile of those attempts' durations (ms, a measured value), or `null`. */
  p95DurationMs: number | null;
}

/**
 * @internal The statement {@link readEndpointHealth} runs: `$1` and `$2` the window, `$3` the
 * most endpoints. Its attempts are read as `COUNT_ATTEMPTS_BY_HOUR`'s are, each one's
 * endpoint looked up by its delivery's key.
 */
export const READ_ENDPOINT_HEALTH = `WITH recent AS (
       SELECT (SELECT d.endpoint_id FROM deliveries d WHERE d.id = a.delivery_id) AS endpoint_id,
              count(*)::int AS attempts,
              count(*) FILTER (WHERE a.status BETWEEN 200 AND 299)::int AS succeeded,
              percentile_disc(0.95) WITHIN GROUP (ORDER BY a.duration_ms) AS p95_ms
         FROM delivery_attempts a
        WHERE a.started_at >= $1 AND a.started_at <= $2
        GROUP BY 1)
     SELECT e.id, e.url, e.state, e.disabled_reason, e.failing_since, e.updated_at,
            coalesce(r.attempts, 0) AS attempts, coalesce(r.succeeded, 0) AS succeeded,
            r.p95_ms, count(*) OVER ()::int AS total
       FROM webhook_endpoints e LEFT JOIN recent r ON r.endpoint_id = e.id
      ORDER BY (e.state = 'disabled' OR e.failing_since IS NOT NULL) DESC,
               coalesce(e.failing_since, e.updated_at), e.created_at, e.id
      LIMIT $3`;

/**
 * @internal Every endpoint's attempts, successes and 95th-percentile attempt duration since
 * `now` minus {@link OVERVIEW_HOURS} hours, in one grouped statement: the disabled and failing
 * endpoints first (the longest failing first), then the others, oldest first; at most `limit`,
 * and `total`, the number of endpoints.
 */
export async function readEndpointHealth(
  queryable: Queryable,
  options: { now: number; limit: number },
): Promise<{ endpoints: EndpointHealth[]; total: number }> {
  const since = new Date(options.now - OVERVIEW_HOURS * HOUR_MS);
  const { rows } = await queryable.query<{
    id: string;
    url: string;
    state: 'active' | 'disabled';
    disabled_reason: 'gone' | 'failing' | null;
    failing_since: string | null;
    updated_at: string;
    attempts: number;
    succeeded: number;
    p95_ms: number | null;
    total: number;
  }>(READ_ENDPOINT_HEALTH, [since, new Date(options.now), options.limit]);
  return {
    total: rows[0]?.total ?? 0,
    endpoints: rows.map((row) => ({
      id: row.id,
      url: row.url,
      state: row.state,
      disabledReason: row.disabled_reason,
      failingSince: row.failing_since,
      updatedAt: row.updated_at,
      attempts: row.attempts,
      succeeded: row.succeeded,
      p95DurationMs: row.p95_ms === null ? null : Number(row.p95_ms),
    })),
  };
}

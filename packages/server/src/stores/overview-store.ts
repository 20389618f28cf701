import type { Queryable } from '../storage/database.js';

// The reads of the console's overview (the home page): each panel is one statement, grouped in
// the database, so that the page costs a handful of round trips however much happened. They are
// gathered here, rather than beside each table's writes, because they are one page's view across
// the tables (endpoints, deliveries and attempts, receipts, tokens, users), and read only.

/** @internal How many hours the overview's charts and rates cover. */
export const OVERVIEW_HOURS = 24;

const HOUR_MS = 3_600_000;

/**
 * @internal The hours the overview's charts show at `now`: {@link OVERVIEW_HOURS} whole UTC
 * hours, the last one the hour `now` is in. `start` is the first hour's start, `end` the last
 * one's end (exclusive).
 */
export function overviewHours(now: number): { start: Date; end: Date } {
  const end = Math.floor(now / HOUR_MS) * HOUR_MS + HOUR_MS;
  return { start: new Date(end - OVERVIEW_HOURS * HOUR_MS), end: new Date(end) };
}

/** @internal One hour of a chart: when it starts and how many of each outcome it holds. */
export interface HourCounts<Outcome extends string> {
  /** The hour's start, ISO 8601 UTC. */
  hourStart: string;
  counts: Record<Outcome, number>;
}

/** @internal The outcomes of a delivery attempt on the overview's chart. */
export const attemptOutcomes = ['delivered', 'failed', 'dead'] as const;

/** @internal One of {@link attemptOutcomes}. */
export type AttemptOutcome = (typeof attemptOutcomes)[number];

/** @internal The outcomes of an EHR receipt on the overview's chart. */
export const receiptOutcomes = ['accepted', 'badSignature', 'replay'] as const;

/** @internal One of {@link receiptOutcomes}. */
export type ReceiptOutcome = (typeof receiptOutcomes)[number];

function fillHours<Outcome extends string>(
  start: Date,
  outcomes: readonly Outcome[],
  rows: readonly ({ bucket: number } & Record<Outcome, number>)[],
): HourCounts<Outcome>[] {
  const hours: HourCounts<Outcome>[] = [];
  for (let index = 0; index < OVERVIEW_HOURS; index += 1) {
    const counts = Object.fromEntries(outcomes.map((outcome) => [outcome, 0])) as Record<
      Outcome,
      number
    >;
    hours.push({ hourStart: new Date(start.getTime() + index * HOUR_MS).toISOString(), counts });
  }
  for (const row of rows) {
    const hour = hours[row.bucket];
    if (!hour) continue;
    for (const outcome of outcomes) hour.counts[outcome] = Number(row[outcome]);
  }
  return hours;
}

// The hour (0 for the first) a timestamp falls in, counted from $1.
const bucketOf = (column: string) =>
  `floor(extract(epoch FROM (${column} - $1::timestamptz)) / 3600)::int`;

/**
 * @internal Delivery attempts per hour over the overview's hours at `now`, by outcome, in one
 * grouped statement: `delivered` (answered 2xx), `dead` (failed, and the last attempt of a
 * delivery given up) and `failed` (every other failed attempt: one to be retried). Every hour is
 * present, with zeros.
 */
export async function countAttemptsByHour(
  queryable: Queryable,
  options: { now: number },
): Promise<HourCounts<AttemptOutcome>[]> {
  const { start, end } = overviewHours(options.now);
  const { rows } = await queryable.query<{ bucket: number } & Record<AttemptOutcome, number>>(
    `WITH attempt AS (
       SELECT a.started_at, coalesce(a.status BETWEEN 200 AND 299, false) AS succeeded,
              d.state = 'dead' AND NOT EXISTS (
                SELECT 1 FROM delivery_attempts later
                 WHERE later.delivery_id = a.delivery_id AND later.seq > a.seq) AS final_failure
         FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
        WHERE a.started_at >= $1 AND a.started_at < $2)
     SELECT ${bucketOf('started_at')} AS bucket,
            count(*) FILTER (WHERE succeeded)::int AS delivered,
            count(*) FILTER (WHERE NOT succeeded AND NOT final_failure)::int AS failed,
            count(*) FILTER (WHERE NOT succeeded AND final_failure)::int AS dead
       FROM attempt GROUP BY 1`,
    [start, end],
  );
  return fillHours(start, attemptOutcomes, rows);
}

/**
 * @internal EHR receipts per hour over the overview's hours at `now`, by outcome, in one grouped
 * statement: `accepted` (`valid`), `badSignature` (`invalid_signature`) and `replay`
 * (`replayed`); the other verdicts (an unknown or unsupported vendor) are not counted. Every hour
 * is present, with zeros.
 */
export async function countReceiptsByHour(
  queryable: Queryable,
  options: { now: number },
): Promise<HourCounts<ReceiptOutcome>[]> {
  const { start, end } = overviewHours(options.now);
  const { rows } = await queryable.query<{ bucket: number } & Record<ReceiptOutcome, number>>(
    `SELECT ${bucketOf('received_at')} AS bucket,
            count(*) FILTER (WHERE verdict = 'valid')::int AS "accepted",
            count(*) FILTER (WHERE verdict = 'invalid_signature')::int AS "badSignature",
            count(*) FILTER (WHERE verdict = 'replayed')::int AS "replay"
       FROM ehr_receipts
      WHERE received_at >= $1 AND received_at < $2
      GROUP BY 1`,
    [start, end],
  );
  return fillHours(start, receiptOutcomes, rows);
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
  }>(
    `WITH recent AS (
       SELECT d.endpoint_id, count(*)::int AS attempts,
              count(*) FILTER (WHERE a.status BETWEEN 200 AND 299)::int AS succeeded,
              percentile_disc(0.95) WITHIN GROUP (ORDER BY a.duration_ms) AS p95_ms
         FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
        WHERE a.started_at >= $1 AND a.started_at <= $2
        GROUP BY d.endpoint_id)
     SELECT e.id, e.url, e.state, e.disabled_reason, e.failing_since, e.updated_at,
            coalesce(r.attempts, 0) AS attempts, coalesce(r.succeeded, 0) AS succeeded,
            r.p95_ms, count(*) OVER ()::int AS total
       FROM webhook_endpoints e LEFT JOIN recent r ON r.endpoint_id = e.id
      ORDER BY (e.state = 'disabled' OR e.failing_since IS NOT NULL) DESC,
               coalesce(e.failing_since, e.updated_at), e.created_at, e.id
      LIMIT $3`,
    [since, new Date(options.now), options.limit],
  );
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

/** @internal A working token that stops working soon. */
export interface ExpiringToken {
  id: string;
  label: string | null;
  expiresAt: string;
  accountId: string;
  accountName: string;
}

/**
 * @internal The working tokens (not revoked, not replaced, of an enabled account) that expire
 * after `now` and within `withinMs`, soonest first, at most `limit`.
 */
export async function listTokensExpiringSoon(
  queryable: Queryable,
  options: { now: number; withinMs: number; limit: number },
): Promise<ExpiringToken[]> {
  const { rows } = await queryable.query<{
    id: string;
    label: string | null;
    expires_at: string;
    account_id: string;
    name: string;
  }>(
    `SELECT t.id, t.label, t.expires_at, a.id AS account_id, a.name
       FROM tokens t JOIN service_accounts a ON a.id = t.account_id
      WHERE t.revoked_at IS NULL AND t.replaced_by IS NULL AND a.disabled_at IS NULL
        AND t.expires_at > $1 AND t.expires_at <= $2
      ORDER BY t.expires_at, t.id
      LIMIT $3`,
    [new Date(options.now), new Date(options.now + options.withinMs), options.limit],
  );
  return rows.map((row) => ({
    id: row.id,
    label: row.label,
    expiresAt: row.expires_at,
    accountId: row.account_id,
    accountName: row.name,
  }));
}

/** @internal A user invited who has not yet chosen a password (so never signed in). */
export interface InvitedUser {
  id: string;
  email: string;
  name: string;
  invitedAt: string;
}

/** @internal The users invited and not yet signed in (nor disabled), oldest first, at most `limit`. */
export async function listUsersNotSignedIn(
  queryable: Queryable,
  options: { limit: number },
): Promise<InvitedUser[]> {
  const { rows } = await queryable.query<{
    id: string;
    email: string;
    name: string;
    created_at: string;
  }>(
    `SELECT id, email, name, created_at FROM users
      WHERE password_hash IS NULL AND disabled_at IS NULL
      ORDER BY created_at, id
      LIMIT $1`,
    [options.limit],
  );
  return rows.map((row) => ({
    id: row.id,
    email: row.email,
    name: row.name,
    invitedAt: row.created_at,
  }));
}

/** @internal A receipt refused for its signature. */
export interface BadSignatureReceipt {
  id: string;
  vendor: string;
  receivedAt: string;
}

/**
 * @internal The receipts refused for a bad signature since `now` minus {@link OVERVIEW_HOURS}
 * hours, newest first, at most `limit`.
 */
export async function listRecentBadSignatures(
  queryable: Queryable,
  options: { now: number; limit: number },
): Promise<BadSignatureReceipt[]> {
  const { rows } = await queryable.query<{ id: string; vendor: string; received_at: string }>(
    `SELECT id, vendor, received_at FROM ehr_receipts
      WHERE verdict = 'invalid_signature' AND received_at >= $1 AND received_at <= $2
      ORDER BY received_at DESC, id DESC
      LIMIT $3`,
    [new Date(options.now - OVERVIEW_HOURS * HOUR_MS), new Date(options.now), options.limit],
  );
  return rows.map((row) => ({ id: row.id, vendor: row.vendor, receivedAt: row.received_at }));
}

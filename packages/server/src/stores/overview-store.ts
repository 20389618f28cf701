import type { Queryable } from '../storage/database.js';

// The reads of the console's overview (the home page): each panel is one statement, grouped in
// the database, so that the page costs a handful of round trips however much happened. They are
// gathered here, rather than beside each table's writes, because they are one page's view across
// the tables (endpoints, deliveries and attempts, receipts, tokens, users), and read only.

/** @internal How many hours the overview's charts and rates cover. */
export const OVERVIEW_HOURS = 24;

/** @internal An hour in milliseconds, the overview's unit. */
export const HOUR_MS = 3_600_000;

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
 * @internal The statement {@link countAttemptsByHour} runs: `$1` and `$2` the hours' start and
 * end. It reads the attempts of that window through `delivery_attempts_started_at` (migration 36)
 * and looks up a failed one's delivery by its key, so that it costs the window's attempts, not
 * every attempt and delivery kept (a join lets a planner without statistics, PGlite's, read
 * `deliveries` whole). The attempts are counted by hour and outcome before the outcomes are
 * spread into columns, so that each attempt's outcome is worked out once: a `FILTER` per
 * outcome over `attempt` would repeat its lookups in each.
 */
export const COUNT_ATTEMPTS_BY_HOUR = `WITH attempt AS (
       SELECT ${bucketOf('started_at')} AS bucket,
              CASE WHEN a.status BETWEEN 200 AND 299 THEN 'delivered'
                   WHEN (SELECT d.state FROM deliveries d WHERE d.id = a.delivery_id) = 'dead'
                        AND NOT EXISTS (SELECT 1 FROM delivery_attempts later
                                         WHERE later.delivery_id = a.delivery_id
                                           AND later.seq > a.seq) THEN 'dead'
                   ELSE 'failed' END AS outcome
         FROM delivery_attempts a
        WHERE a.started_at >= $1 AND a.started_at < $2),
     counted AS (SELECT bucket, outcome, count(*)::int AS n FROM attempt GROUP BY 1, 2)
     SELECT bucket,
            coalesce(sum(n) FILTER (WHERE outcome = 'delivered'), 0)::int AS delivered,
            coalesce(sum(n) FILTER (WHERE outcome = 'failed'), 0)::int AS failed,
            coalesce(sum(n) FILTER (WHERE outcome = 'dead'), 0)::int AS dead
       FROM counted GROUP BY 1`;

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
    COUNT_ATTEMPTS_BY_HOUR,
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

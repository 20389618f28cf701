import type { Clock } from '../clock.js';
import { IDEMPOTENCY_WINDOW_MS } from '../plugins/idempotency.js';
import type { Database } from '../storage/database.js';
import { pruneSignInRecords } from '../users/sign-in-links.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** How long records that outsiders can make the server keep are kept, in days. */
export interface RetentionPolicy {
  /**
   * EHR webhook receipts, and the digests of accepted deliveries that recognise a replay (kept
   * at least a day whatever this says).
   */
  receiptDays: number;
  /** Finished outbound deliveries (delivered or dead) with their attempts, and their events. */
  deliveryDays: number;
  /**
   * Tombstones of deleted contacts in the change feed (`GET /api/contacts/changes`). A sync
   * position older than this must resync: the feed answers 410 `resync_required`.
   */
  tombstoneDays: number;
}

/** The defaults: 30 days for receipts and for finished deliveries, 90 for tombstones. */
export const DEFAULT_RETENTION: Readonly<RetentionPolicy> = Object.freeze({
  receiptDays: 30,
  deliveryDays: 30,
  tombstoneDays: 90,
});

/** The longest retention that can be configured: ten years. */
export const MAX_RETENTION_DAYS = 3650;

/** How many rows {@link pruneExpired} deleted, by kind. */
export interface PruneResult {
  /** EHR webhook receipts. */
  ehrReceipts: number;
  /** Digests of accepted EHR deliveries (replay detection). */
  ehrDeliveryDigests: number;
  /** Finished outbound deliveries. */
  deliveries: number;
  /** Their attempts. */
  deliveryAttempts: number;
  /** Dispatched outbox events with no pending delivery. */
  outboxEvents: number;
  /** Idempotency records past their 24-hour window. */
  idempotencyKeys: number;
  /** Expired web sessions. */
  sessions: number;
  /** Used or expired sign-in links. */
  signInLinks: number;
  /** Ended sign-in failure windows. */
  signInFailures: number;
  /** Tombstones of deleted contacts (the change feed's deletions). */
  contactTombstones: number;
}

function checkPolicy(policy: RetentionPolicy): void {
  for (const [name, days] of Object.entries(policy)) {
    if (!(Number.isInteger(days) && days >= 1 && days <= MAX_RETENTION_DAYS)) {
      throw new RangeError(`${name} is a whole number of days from 1 to ${MAX_RETENTION_DAYS}.`);
    }
  }
}

/** @internal The change feed whose horizon {@link pruneExpired} moves: contacts. */
export const CONTACTS_FEED = 'contacts';

/**
 * Deletes what has outlived its retention, by age at `now`: EHR receipts and replay digests
 * older than `receiptDays`; finished deliveries (delivered or dead) older than `deliveryDays`
 * with their attempts, and dispatched outbox events that old with no delivery still pending;
 * tombstones of contacts deleted more than `tombstoneDays` ago, moving the change feed's horizon
 * (a sync position or `updatedSince` before it is then answered 410 `resync_required`);
 * idempotency records past their 24-hour window (reservations whose lease ran out included);
 * expired sessions, used or expired sign-in links and ended sign-in failure windows. Pending
 * deliveries, contacts, messages and the audit log are never pruned. Answers what went.
 *
 * @example
 * ```ts
 * const pruned = await pruneExpired(database, { now: Date.now() });
 * console.log(pruned.ehrReceipts, 'receipts deleted');
 * ```
 */
export async function pruneExpired(
  database: Database,
  options: { now: number; policy?: Partial<RetentionPolicy> },
): Promise<PruneResult> {
  const policy = { ...DEFAULT_RETENTION, ...options.policy };
  checkPolicy(policy);
  const { now } = options;
  const receiptCutoff = new Date(now - policy.receiptDays * DAY_MS);
  // Replay digests live as long as receipts, and at least a day.
  const digestCutoff = new Date(now - Math.max(1, policy.receiptDays) * DAY_MS);
  const deliveryCutoff = new Date(now - policy.deliveryDays * DAY_MS);
  const ehrReceipts = await database.query('DELETE FROM ehr_receipts WHERE received_at < $1', [
    receiptCutoff,
  ]);
  const ehrDeliveryDigests = await database.query(
    'DELETE FROM ehr_delivery_digests WHERE received_at < $1',
    [digestCutoff],
  );
  // Attempts go with their delivery (ON DELETE CASCADE); the statement's snapshot counts them.
  const deliveries = await database.query<{ deliveries: number; attempts: number }>(
    `WITH gone AS (
       DELETE FROM deliveries
        WHERE state IN ('delivered', 'dead') AND created_at < $1
       RETURNING id)
     SELECT (SELECT count(*) FROM gone)::int AS deliveries,
            (SELECT count(*) FROM delivery_attempts
              WHERE delivery_id IN (SELECT id FROM gone))::int AS attempts`,
    [deliveryCutoff],
  );
  const outboxEvents = await database.query(
    `DELETE FROM outbox_events e
      WHERE e.dispatched_at IS NOT NULL AND e.created_at < $1
        AND NOT EXISTS (SELECT 1 FROM deliveries d
                         WHERE d.event_id = e.id AND d.state = 'pending')`,
    [deliveryCutoff],
  );
  const idempotencyKeys = await database.query(
    `DELETE FROM idempotency_keys
      WHERE created_at < $1 AND (lease_expires_at IS NULL OR lease_expires_at < $2)`,
    [new Date(now - IDEMPOTENCY_WINDOW_MS), new Date(now)],
  );
  // The tombstones and the horizon move together: a reader sees both or neither.
  // The horizon is the last pruned change in change order, (change_xid, change_seq).
  const later = `(EXCLUDED.pruned_through_xid, EXCLUDED.pruned_through_seq)
                   > (change_feed_horizons.pruned_through_xid, change_feed_horizons.pruned_through_seq)`;
  const tombstones = await database.query<{ count: number }>(
    `WITH gone AS (
       DELETE FROM contact_tombstones WHERE deleted_at < $1 RETURNING change_xid, change_seq),
     last AS (SELECT change_xid, change_seq FROM gone
               ORDER BY change_xid DESC, change_seq DESC LIMIT 1),
     horizon AS (
       INSERT INTO change_feed_horizons (feed, pruned_through_xid, pruned_through_seq, pruned_before)
       SELECT $2, change_xid, change_seq, $1 FROM last
       ON CONFLICT (feed) DO UPDATE
         SET pruned_through_xid = CASE WHEN ${later} THEN EXCLUDED.pruned_through_xid
                                       ELSE change_feed_horizons.pruned_through_xid END,
             pruned_through_seq = CASE WHEN ${later} THEN EXCLUDED.pruned_through_seq
                                       ELSE change_feed_horizons.pruned_through_seq END,
             pruned_before = GREATEST(change_feed_horizons.pruned_before, EXCLUDED.pruned_before))
     SELECT count(*)::int AS count FROM gone`,
    [new Date(now - policy.tombstoneDays * DAY_MS), CONTACTS_FEED],
  );
  const signIn = await pruneSignInRecords(database, { now });
  return {
    ehrReceipts: ehrReceipts.rowCount,
    ehrDeliveryDigests: ehrDeliveryDigests.rowCount,
    deliveries: deliveries.rows[0]?.deliveries ?? 0,
    deliveryAttempts: deliveries.rows[0]?.attempts ?? 0,
    outboxEvents: outboxEvents.rowCount,
    idempotencyKeys: idempotencyKeys.rowCount,
    sessions: signIn.sessions,
    signInLinks: signIn.links,
    signInFailures: signIn.failures,
    contactTombstones: tombstones.rows[0]?.count ?? 0,
  };
}

/** Options of {@link startRetentionSchedule}. */
export interface RetentionScheduleOptions {
  /** Where the records live. */
  database: Database;
  /** Decides the ages; the injected clock of the server. */
  clock: Clock;
  /** The retention; each field given replaces its default ({@link DEFAULT_RETENTION}). */
  policy?: Partial<RetentionPolicy>;
  /** How often to prune, in ms; default one hour (and once at start). */
  intervalMs?: number;
  /** Schedules the runs; defaults to `setInterval` (tests pass their own). */
  setInterval?: (
    run: () => void,
    ms: number,
  ) =>
    | {
        /** Lets the process exit while the schedule waits (Node's timers have it). */
        unref?: () => void;
      }
    | number;
  /** Cancels them; defaults to `clearInterval`. */
  clearInterval?: (handle: never) => void;
  /** Told what each run deleted. */
  onPruned?: (result: PruneResult) => void;
  /** Told when a run fails; the schedule goes on. */
  onError?: (error: unknown) => void;
}

/** A running retention schedule. */
export interface RetentionSchedule {
  /** Prunes now (the scheduled runs call this); runs never overlap. */
  runNow(): Promise<PruneResult | undefined>;
  /** Stops the schedule and waits for a run in progress. */
  stop(): Promise<void>;
}

/**
 * Prunes by age on a schedule (see {@link pruneExpired}): once at start, then every
 * `intervalMs`. `followup-server start` runs one with the configured retention.
 *
 * @example
 * ```ts
 * const schedule = startRetentionSchedule({ database, clock: systemClock });
 * await schedule.stop();
 * ```
 */
export function startRetentionSchedule(options: RetentionScheduleOptions): RetentionSchedule {
  const { database, clock } = options;
  checkPolicy({ ...DEFAULT_RETENTION, ...options.policy });
  let running: Promise<PruneResult | undefined> | undefined;
  const runNow = (): Promise<PruneResult | undefined> => {
    if (running) return running;
    running = pruneExpired(database, {
      now: clock.now(),
      ...(options.policy ? { policy: options.policy } : {}),
    })
      .then((result) => {
        options.onPruned?.(result);
        return result;
      })
      .catch((error: unknown) => {
        options.onError?.(error);
        return undefined;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const schedule = options.setInterval ?? setInterval;
  const cancel = options.clearInterval ?? clearInterval;
  const handle = schedule(() => void runNow(), options.intervalMs ?? 60 * 60 * 1000);
  if (typeof handle === 'object') handle.unref?.();
  void runNow();
  return {
    runNow,
    async stop() {
      cancel(handle as never);
      await running;
    },
  };
}

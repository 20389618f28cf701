import type { Clock } from '../clock.js';
import type { Database } from '../storage/database.js';
import { pruneFinishedDeliveries } from '../stores/delivery-store.js';
import { IDEMPOTENCY_WINDOW_MS, pruneIdempotencyKeys } from '../stores/idempotency-store.js';
import { pruneDispatchedEvents } from '../stores/outbox-store.js';
import { deleteSpentPortalRecords } from '../stores/portal-store.js';
import { pruneDeliveryDigests, pruneReceipts } from '../stores/receipt-store.js';
import { pruneContactTombstones } from '../stores/retention-store.js';
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
  /** Used or expired subscriber portal links. */
  portalLinks: number;
  /** Expired subscriber portal sessions. */
  portalSessions: number;
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
  const ehrReceipts = await pruneReceipts(database, receiptCutoff);
  const ehrDeliveryDigests = await pruneDeliveryDigests(database, digestCutoff);
  const deliveries = await pruneFinishedDeliveries(database, deliveryCutoff);
  const outboxEvents = await pruneDispatchedEvents(database, deliveryCutoff);
  const idempotencyKeys = await pruneIdempotencyKeys(database, {
    createdBefore: new Date(now - IDEMPOTENCY_WINDOW_MS),
    leaseEndedBefore: new Date(now),
  });
  const contactTombstones = await pruneContactTombstones(database, {
    deletedBefore: new Date(now - policy.tombstoneDays * DAY_MS),
    feed: CONTACTS_FEED,
  });
  const signIn = await pruneSignInRecords(database, { now });
  const portal = await deleteSpentPortalRecords(database, new Date(now));
  return {
    ehrReceipts,
    ehrDeliveryDigests,
    deliveries: deliveries.deliveries,
    deliveryAttempts: deliveries.attempts,
    outboxEvents,
    idempotencyKeys,
    sessions: signIn.sessions,
    signInLinks: signIn.links,
    signInFailures: signIn.failures,
    portalLinks: portal.links,
    portalSessions: portal.sessions,
    contactTombstones,
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

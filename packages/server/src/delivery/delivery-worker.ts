import { systemClock } from '../clock.js';
import { createIdGenerator } from '../ids.js';
import {
  claimDueDeliveries,
  countDueWork,
  nextDeliveryDueAt,
} from '../stores/delivery-claim-store.js';
import { OUTBOX_CHANNEL } from '../stores/outbox-store.js';
import { createAttemptSlots } from './attempt-slots.js';
import { createDeliveryAttempter } from './delivery-attempt.js';
import { createDeliveryPump, type Look } from './delivery-pump.js';
import {
  DEFAULT_AUTO_DISABLE_AFTER_MS,
  DEFAULT_DELIVERY_CONCURRENCY,
  DEFAULT_ENDPOINT_CONCURRENCY,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_WAKE_INTERVAL_MS,
  type DeliveryWorker,
  type DeliveryWorkerOptions,
  MAX_ATTEMPT_TIMEOUT_MS,
} from './delivery-worker-options.js';
import { FAN_OUT_BATCH, fanOutEvents } from './fan-out.js';
import { type FirstAnalyzeWatch, watchFirstAnalyze } from './first-analyze.js';
import { DEFAULT_RETRY_DELAYS_SECONDS } from './retry-schedule.js';

/**
 * Creates the outbound delivery worker of one server instance. It turns outbox events into
 * deliveries, claims due deliveries with `FOR UPDATE SKIP LOCKED` under a lease (so any number
 * of instances share the work and none sends a delivery another one holds), posts each one
 * signed, records every attempt, marks a 2xx delivered, and schedules a retry for anything else
 * until the schedule is spent, then marks the delivery dead. A delivery whose lease ran out (its
 * worker was killed mid-attempt) is due again, with the same id: delivery is at least once.
 *
 * @example
 * ```ts
 * const worker = createDeliveryWorker({ database });
 * const app = buildServer({ database, onOutboxEvent: () => worker.wake() });
 * worker.start();
 * // … at shutdown:
 * await app.close();
 * await worker.close();
 * ```
 */
export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { database } = options;
  const clock = options.clock ?? systemClock;
  const newId = options.newId ?? createIdGenerator({ now: () => clock.now() });
  const schedule = options.retryDelays ?? DEFAULT_RETRY_DELAYS_SECONDS;
  const maxTimeoutMs = options.attemptTimeoutMs;
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_DELIVERY_CONCURRENCY);
  const endpointConcurrency = Math.max(
    1,
    options.endpointConcurrency ?? DEFAULT_ENDPOINT_CONCURRENCY,
  );
  const autoDisableAfterMs = options.autoDisableAfterMs ?? DEFAULT_AUTO_DISABLE_AFTER_MS;
  // The lease covers the longest attempt an endpoint may ask for, and the time to record it.
  const leaseMs =
    options.leaseMs ??
    Math.min(maxTimeoutMs ?? MAX_ATTEMPT_TIMEOUT_MS, MAX_ATTEMPT_TIMEOUT_MS) + 5_000;
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const wakeIntervalMs = Math.max(0, options.wakeIntervalMs ?? DEFAULT_WAKE_INTERVAL_MS);
  const random = options.random ?? Math.random;
  const allowPrivate = options.allowPrivate ?? false;
  const allowInsecure = options.allowInsecure ?? false;
  const onError = options.onError ?? (() => {});

  const slots = createAttemptSlots({ concurrency, endpointConcurrency });
  const attempt = createDeliveryAttempter({
    database,
    clock,
    newId,
    schedule,
    random,
    maxTimeoutMs,
    timer: options.attemptTimer,
    autoDisableAfterMs,
    allowPrivate,
    allowInsecure,
    lookup: options.lookup,
    onError,
    onAttempt: options.onAttempt,
    tracing: options.tracing,
    maxBatch: concurrency,
  });

  // Fills the free slots with due deliveries until there are none, or no free slot. Resolves
  // whether due deliveries may be left unclaimed: every free slot was filled, or an endpoint is
  // at its limit (what is due for it waits for one of its attempts to end).
  async function fill(look: Look): Promise<boolean> {
    while (!look.stopping()) {
      while ((await fanOutEvents(database, { clock, newId })) === FAN_OUT_BATCH) {
        if (look.stopping()) return true;
      }
      const free = slots.free();
      if (free <= 0) return true;
      const busy = slots.busy();
      const rows = await claimDueDeliveries(database, {
        now: clock.now(),
        leaseMs,
        limit: free,
        endpointConcurrency,
        busyEndpoints: busy.endpoints,
        busyCounts: busy.counts,
      });
      for (const row of rows) {
        slots.run(row.endpoint_id, () => attempt(row), pump.attemptEnded);
      }
      const workLeft = rows.length === free || slots.saturated().length > 0;
      // Fewer due than free slots: done, unless an attempt ended meanwhile and work may be left
      // (its endpoint may have more due). Wake-ups by writes that came during this look are
      // answered by the next one, after the wake interval (see delivery-pump.ts), not by looking
      // again at once.
      if (!look.takeFreedSlot(workLeft) && rows.length < free) return workLeft;
    }
    return false;
  }

  // How long until the next delivery of this database is due (a retry, or a lease that runs
  // out), capped by the poll interval.
  async function nextWaitMs(workLeft: boolean): Promise<number> {
    // Every slot busy, or work left behind: an attempt that ends starts the next look, which
    // claims whatever is due by then. Asking the database for the next due time after every look
    // of a backlog cost as much as the claim itself.
    if (slots.full() || workLeft) return pollIntervalMs;
    const now = clock.now();
    // An endpoint whose slots this worker fills is left out: an attempt that ends wakes it.
    const due = await nextDeliveryDueAt(database, slots.saturated());
    return due === undefined ? pollIntervalMs : Math.min(pollIntervalMs, Math.max(0, due - now));
  }

  const pump = createDeliveryPump({
    fill,
    nextWaitMs,
    pollIntervalMs,
    wakeIntervalMs,
    freedSlots: database.driver === 'postgres' ? 'always' : 'while-work-is-left',
    onError,
  });
  let listening: Promise<() => Promise<void>> | undefined;
  // On PostgreSQL, statistics of a new database's delivery tables before autovacuum's first visit
  // (first-analyze.ts); PGlite plans the worker's statements again every second instead.
  let statistics: FirstAnalyzeWatch | undefined;

  return {
    start() {
      if (database.driver === 'postgres' && statistics === undefined) {
        statistics = watchFirstAnalyze({ database, onError });
      }
      pump.start(() => {
        // On PostgreSQL, events committed by other instances wake this worker too: their
        // notifications name their schema, and another deployment's in the same database are
        // passed by.
        const onNotification = options.onNotification;
        const woken = onNotification
          ? (payload?: string) => {
              onNotification({ reconnected: payload === undefined });
              pump.wake();
            }
          : pump.wake;
        listening = database
          .listen?.(OUTBOX_CHANNEL, woken, { ownSchemaOnly: true })
          .catch((error: unknown) => {
            onError(error);
            return async () => {};
          });
      });
    },
    wake: pump.wake,
    async runDue() {
      do {
        await pump.look();
        await slots.settled();
        // Attempts that just ended may have made more due at once (a zero wait) or freed slots.
      } while ((await countDueWork(database, new Date(clock.now()))) > 0 && !pump.stopped());
    },
    async close() {
      pump.stop();
      await statistics?.stop();
      await (await listening)?.();
      await pump.current();
      await slots.settled();
    },
  };
}

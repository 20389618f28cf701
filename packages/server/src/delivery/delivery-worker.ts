import type { LookupFunction } from 'node:net';
import { recordAuditEntry } from '../audit/audit-log.js';
import { type Clock, systemClock } from '../clock.js';
import { createIdGenerator, type IdGenerator } from '../ids.js';
import { OUTBOX_CHANNEL } from '../outbox/outbox.js';
import type { Database, Queryable } from '../storage/database.js';
import { buildDeliveryRequest } from './delivery-request.js';
import { FAN_OUT_BATCH, fanOutEvents } from './fan-out.js';
import { type DeliveryAttemptResult, postDelivery } from './post-delivery.js';
import { retryAfterMs } from './retry-after.js';
import { DEFAULT_RETRY_DELAYS_SECONDS, retryDelayMs } from './retry-schedule.js';
import { signingSecrets } from './webhook-endpoints.js';

/** Default time one attempt may take, connection to answer: 15 seconds. */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 15_000;
/** Default most attempts one worker has in flight to one endpoint: 4. */
export const DEFAULT_ENDPOINT_CONCURRENCY = 4;
/**
 * Default run of failures after which an endpoint is disabled: every attempt failing for 5 days.
 */
export const DEFAULT_AUTO_DISABLE_AFTER_MS = 5 * 86_400_000;
/** Default number of attempts one worker makes at the same time. */
export const DEFAULT_DELIVERY_CONCURRENCY = 32;
/**
 * Default longest wait between two looks for due deliveries when nothing woke the worker: 1
 * second. New events wake it at once (this process's directly, other instances' through
 * PostgreSQL `LISTEN/NOTIFY`), and a retry or a lease's end when it is due; the poll covers
 * operator retries and notifications lost with a connection.
 */
export const DEFAULT_POLL_INTERVAL_MS = 1_000;
/**
 * Default least time between two looks that wake-ups start: 10 ms. A wake-up after a quiet
 * spell looks at once; wake-ups that follow closer than this (a burst of writes, each waking the
 * worker) are answered by one look at the end of the interval, which takes all their events
 * together, instead of one look per write.
 */
export const DEFAULT_WAKE_INTERVAL_MS = 10;

/** Options of {@link createDeliveryWorker}. */
export interface DeliveryWorkerOptions {
  /** The storage, already migrated. The worker does not close it. */
  database: Database;
  /**
   * The time used for due dates, leases, signatures and records; defaults to the system clock.
   * With a clock that only moves when told, drive the worker with `runDue()`.
   */
  clock?: Clock;
  /** Makes delivery ids; defaults to a ULID generator on `clock`. */
  newId?: IdGenerator;
  /**
   * The wait before each retry, in seconds (`--delivery-retry-delays`,
   * `DELIVERY_RETRY_DELAYS`); after the last one the delivery is dead. Defaults to
   * `DEFAULT_RETRY_DELAYS_SECONDS` (11 retries over about 3.3 days). Each wait is spread by
   * ±20 %.
   */
  retryDelays?: readonly number[];
  /** The most one attempt may take, in milliseconds; defaults to 15 000. */
  attemptTimeoutMs?: number;
  /**
   * The most attempts this worker has in flight to one endpoint at a time, so that one slow
   * subscriber cannot take every slot (`--endpoint-concurrency`); defaults to 4. Each instance
   * counts its own: N instances make at most N times this many.
   */
  endpointConcurrency?: number;
  /**
   * How long every attempt to an endpoint may fail before the server disables it, in
   * milliseconds (`--auto-disable-after`); defaults to 5 days. A `410 Gone` disables it at once.
   * Both are audited as `endpoint.disabled` by the system.
   */
  autoDisableAfterMs?: number;
  /** Attempts made at the same time by this worker; defaults to 32. */
  concurrency?: number;
  /**
   * Whether deliveries may go to loopback, private and reserved addresses
   * (`--allow-private-endpoints`, `ALLOW_PRIVATE_ENDPOINTS`, implied by `--demo`). Off by
   * default: the resolved address is checked at every attempt.
   */
  allowPrivate?: boolean;
  /**
   * Whether `http:` endpoints may be reached on public addresses, the event in clear
   * (`--allow-insecure-endpoints`, `ALLOW_INSECURE_ENDPOINTS`). Off by default: `http:` reaches
   * only private addresses, where those are allowed (local development).
   */
  allowInsecure?: boolean;
  /**
   * How long a claimed delivery stays with this worker, in milliseconds; after it, another
   * worker may take it (the holder was killed). Defaults to the attempt timeout plus 5 s (the
   * time to record the attempt).
   */
  leaseMs?: number;
  /** The longest wait between two looks for due deliveries; see {@link DEFAULT_POLL_INTERVAL_MS}. */
  pollIntervalMs?: number;
  /**
   * The least time between two looks started by wake-ups, in milliseconds; see
   * {@link DEFAULT_WAKE_INTERVAL_MS}. `0` looks at every wake-up.
   */
  wakeIntervalMs?: number;
  /** Random numbers in [0, 1) for the jitter, `Math.random` by default. */
  random?: () => number;
  /** Told about a failure of the worker itself (storage unreachable); it carries on. */
  onError?: (error: unknown) => void;
  /** Name resolution, for tests; defaults to the system resolver behind the address guard. */
  lookup?: LookupFunction;
}

/** A running delivery worker: see {@link createDeliveryWorker}. */
export interface DeliveryWorker {
  /** Starts looking for due deliveries, now and after every poll interval or wake-up. */
  start(): void;
  /** Looks for work at once: call it after committing an outbox event. */
  wake(): void;
  /**
   * Turns waiting events into deliveries and makes every attempt due now, until none is left;
   * resolves when they are recorded. For tests with a clock that only moves when told.
   */
  runDue(): Promise<void>;
  /**
   * Stops claiming, lets the attempts in flight finish and records them (each ends within the
   * attempt timeout), then resolves. The database stays open.
   */
  close(): Promise<void>;
}

interface ClaimedRow {
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
  const timeoutMs = options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_DELIVERY_CONCURRENCY);
  const endpointConcurrency = Math.max(
    1,
    options.endpointConcurrency ?? DEFAULT_ENDPOINT_CONCURRENCY,
  );
  const autoDisableAfterMs = options.autoDisableAfterMs ?? DEFAULT_AUTO_DISABLE_AFTER_MS;
  const leaseMs = options.leaseMs ?? timeoutMs + 5_000;
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const wakeIntervalMs = Math.max(0, options.wakeIntervalMs ?? DEFAULT_WAKE_INTERVAL_MS);
  const random = options.random ?? Math.random;
  const allowPrivate = options.allowPrivate ?? false;
  const allowInsecure = options.allowInsecure ?? false;
  const onError = options.onError ?? (() => {});

  const inFlight = new Set<Promise<void>>();
  let started = false;
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let pumping: Promise<void> | undefined;
  let listening: Promise<() => Promise<void>> | undefined;
  let again = false;
  // Whether an attempt ended while the worker looked: its slot is free for the next due one.
  let freed = false;
  // This worker's attempts in flight, per endpoint.
  const inFlightByEndpoint = new Map<string, number>();

  // Due deliveries, at most `endpointConcurrency` of this worker's attempts in flight per
  // endpoint: the first due ones are ranked per endpoint, the ones this worker already runs
  // counted, and the rest locked with SKIP LOCKED.
  async function claim(limit: number): Promise<ClaimedRow[]> {
    const now = clock.now();
    const busyEndpoints = [...inFlightByEndpoint.keys()];
    const busyCounts = busyEndpoints.map((id) => inFlightByEndpoint.get(id) ?? 0);
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
      [
        new Date(now),
        new Date(now + leaseMs),
        limit,
        endpointConcurrency,
        busyEndpoints,
        busyCounts,
      ],
    );
    return rows;
  }

  // After an attempt: a success ends the endpoint's run of failures; a failure starts or extends
  // it, and a 410 or a run longer than `autoDisableAfterMs` disables the endpoint, audited.
  async function recordEndpointHealth(
    transaction: Queryable,
    row: ClaimedRow,
    result: DeliveryAttemptResult,
    now: number,
  ): Promise<void> {
    if (result.outcome === 'delivered') {
      await transaction.query(
        'UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL',
        [row.endpoint_id],
      );
      return;
    }
    const { rows } = await transaction.query<{ failing_since: string; state: string }>(
      `UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, $2)
        WHERE id = $1 RETURNING failing_since, state`,
      [row.endpoint_id, new Date(now)],
    );
    const endpoint = rows[0];
    if (endpoint?.state !== 'active') return;
    const reason =
      result.status === 410
        ? 'gone'
        : now - Date.parse(endpoint.failing_since) >= autoDisableAfterMs
          ? 'failing'
          : undefined;
    if (reason === undefined) return;
    await transaction.query(
      `UPDATE webhook_endpoints SET state = 'disabled', disabled_reason = $2, updated_at = $3
        WHERE id = $1`,
      [row.endpoint_id, reason, new Date(now)],
    );
    await recordAuditEntry(
      transaction,
      {
        action: 'endpoint.disabled',
        actor: { type: 'system' },
        target: { type: 'webhook_endpoint', id: row.endpoint_id },
        metadata: {
          reason,
          deliveryId: row.id,
          ...(result.status === undefined ? {} : { status: result.status }),
          failingSince: endpoint.failing_since,
        },
      },
      { clock, newId },
    );
  }

  async function record(row: ClaimedRow, startedAt: number, result: DeliveryAttemptResult) {
    const attempts = row.attempts + 1;
    const now = clock.now();
    const scheduled =
      result.outcome === 'delivered' ? undefined : retryDelayMs(attempts, schedule, random);
    // A subscriber's Retry-After (429, 503) is honoured up to its cap, never shortening the
    // schedule's wait; a spent schedule stays spent.
    const asked = retryAfterMs(result.retryAfter, now);
    const wait =
      scheduled === undefined || asked === undefined ? scheduled : Math.max(scheduled, asked);
    const state =
      result.outcome === 'delivered' ? 'delivered' : wait === undefined ? 'dead' : 'pending';
    await database.transaction(async (transaction) => {
      await transaction.query(
        `INSERT INTO delivery_attempts
           (delivery_id, started_at, duration_ms, status, error, response_excerpt)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [
          row.id,
          new Date(startedAt),
          result.durationMs,
          result.status ?? null,
          result.error ?? null,
          result.responseExcerpt ?? null,
        ],
      );
      await recordEndpointHealth(transaction, row, result, now);
      // Only while this worker still holds the lease: one that ran out may be another's now.
      await transaction.query(
        `UPDATE deliveries
            SET attempts = attempts + 1, state = $3, lease_until = NULL,
                next_attempt_at = $4, last_status = $5, last_error = $6,
                delivered_at = CASE WHEN $3 = 'delivered' THEN $7::timestamptz ELSE delivered_at END
          WHERE id = $1 AND lease_until = $2`,
        [
          row.id,
          row.lease_until,
          state,
          wait === undefined ? null : new Date(now + wait),
          result.status ?? null,
          result.error ?? null,
          new Date(now),
        ],
      );
    });
  }

  async function attempt(row: ClaimedRow): Promise<void> {
    const startedAt = clock.now();
    const request = buildDeliveryRequest(
      {
        id: row.id,
        event: row.event,
        eventId: row.event_id,
        createdAt: row.event_created_at,
        data: row.data,
        previousAttributes: row.previous_attributes,
      },
      { secrets: signingSecrets(row, startedAt), timestamp: Math.floor(startedAt / 1000) },
    );
    const result = await postDelivery({
      url: row.url,
      body: request.body,
      headers: request.headers,
      timeoutMs,
      allowPrivate,
      allowInsecure,
      ...(options.lookup ? { lookup: options.lookup } : {}),
    });
    try {
      await record(row, startedAt, result);
    } catch (error) {
      // Not recorded: the lease runs out and the delivery is made again, with the same id.
      onError(error);
    }
  }

  // Fills the free slots with due deliveries until there are none, or no free slot.
  async function fill(): Promise<void> {
    while (!stopping) {
      while ((await fanOutEvents(database, { clock, newId })) === FAN_OUT_BATCH) {
        if (stopping) return;
      }
      const free = concurrency - inFlight.size;
      if (free <= 0) return;
      const rows = await claim(free);
      for (const row of rows) {
        inFlightByEndpoint.set(row.endpoint_id, (inFlightByEndpoint.get(row.endpoint_id) ?? 0) + 1);
        const running: Promise<void> = attempt(row).finally(() => {
          const left = (inFlightByEndpoint.get(row.endpoint_id) ?? 1) - 1;
          if (left === 0) inFlightByEndpoint.delete(row.endpoint_id);
          else inFlightByEndpoint.set(row.endpoint_id, left);
          inFlight.delete(running);
          if (started) slotFreed();
        });
        inFlight.add(running);
      }
      // Fewer due than free slots: done, unless an attempt ended meanwhile (its endpoint may
      // have more due). Wake-ups by writes that came during this look are answered by the next
      // one, after the wake interval (see `pump`), not by looking again at once.
      if (rows.length < free && !freed) return;
      freed = false;
    }
  }

  // How long until the next delivery of this database is due (a retry, or a lease that runs
  // out), capped by the poll interval.
  async function nextWaitMs(): Promise<number> {
    // Every slot busy: an attempt that ends wakes the worker.
    if (inFlight.size >= concurrency) return pollIntervalMs;
    const now = clock.now();
    // An endpoint whose slots this worker fills is left out: an attempt that ends wakes it.
    const saturated = [...inFlightByEndpoint]
      .filter(([, count]) => count >= endpointConcurrency)
      .map(([id]) => id);
    const { rows } = await database.query<{ due: string | null }>(
      `SELECT min(greatest(d.next_attempt_at, coalesce(d.lease_until, d.next_attempt_at))) AS due
         FROM deliveries AS d JOIN webhook_endpoints AS e ON e.id = d.endpoint_id
        WHERE d.state = 'pending' AND e.state = 'active' AND NOT (d.endpoint_id = ANY($1::text[]))`,
      [saturated],
    );
    const dueAt = rows[0]?.due;
    const due = dueAt === null || dueAt === undefined ? undefined : Date.parse(dueAt);
    return due === undefined ? pollIntervalMs : Math.min(pollIntervalMs, Math.max(0, due - now));
  }

  // When the last look started (the monotonic clock: the spacing of looks is about this
  // process's own work, not about the injected clock of due dates).
  let lastLookAt = Number.NEGATIVE_INFINITY;

  function pump(): Promise<void> {
    if (pumping) {
      again = true;
      return pumping;
    }
    again = false;
    freed = false;
    lastLookAt = performance.now();
    pumping = fill()
      .then(async () => (started && !stopping && !again ? nextWaitMs() : pollIntervalMs))
      .catch((error: unknown) => {
        onError(error);
        return pollIntervalMs;
      })
      .then((waitMs) => {
        pumping = undefined;
        if (stopping) return;
        if ((again && !started) || (freed && started)) {
          // An attempt ended after this look's last claim: fill its slot now.
          void pump();
        } else if (started) {
          clearTimeout(timer);
          // Woken while it looked: once more, after the wake interval.
          timer = setTimeout(wake, again ? untilNextLook() : waitMs);
          timer.unref?.();
        }
      });
    return pumping;
  }

  function untilNextLook(): number {
    return Math.max(0, lastLookAt + wakeIntervalMs - performance.now());
  }

  // An attempt ended. On PostgreSQL its slot is filled at once, not after the wake interval,
  // which is there to gather a burst of writes: with a few slots per endpoint, waiting would
  // hold each slot idle for most of the interval after every attempt (measured: one endpoint's
  // 10,000 webhooks took 27.3 s instead of 13.2). On PGlite a look runs in the thread that
  // serves requests, and a look per attempt took the CPU from them (10,000 creates with
  // webhooks flowing took 14.6 s instead of 9.3, with no webhook sooner): there the ended attempt
  // wakes the worker like a write.
  const fillsFreedSlotsAtOnce = database.driver === 'postgres';
  function slotFreed(): void {
    if (!fillsFreedSlotsAtOnce) {
      wake();
      return;
    }
    if (stopping) return;
    if (pumping) {
      freed = true;
      return;
    }
    clearTimeout(timer);
    void pump();
  }

  function wake(): void {
    if (!started || stopping) return;
    if (pumping) {
      again = true;
      return;
    }
    clearTimeout(timer);
    const waitMs = untilNextLook();
    if (waitMs === 0) {
      void pump();
      return;
    }
    // Right after a look: the next one takes this wake-up's events with those that follow.
    timer = setTimeout(wake, waitMs);
    timer.unref?.();
  }

  return {
    start() {
      if (started || stopping) return;
      started = true;
      // On PostgreSQL, events committed by other instances wake this worker too: their
      // notifications name their schema, and another deployment's in the same database are
      // passed by.
      listening = database
        .listen?.(OUTBOX_CHANNEL, wake, { ownSchemaOnly: true })
        .catch((error: unknown) => {
          onError(error);
          return async () => {};
        });
      void pump();
    },
    wake,
    async runDue() {
      do {
        await pump();
        await Promise.all([...inFlight]);
        // Attempts that just ended may have made more due at once (a zero wait) or freed slots.
      } while ((await dueCount()) > 0 && !stopping);
    },
    async close() {
      stopping = true;
      clearTimeout(timer);
      await (await listening)?.();
      await pumping;
      await Promise.all([...inFlight]);
    },
  };

  async function dueCount(): Promise<number> {
    const now = new Date(clock.now());
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
}

import type { LookupFunction } from 'node:net';
import { WEBHOOK_ENDPOINT_LIMITS } from '@followup/sdk';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { Database } from '../storage/database.js';
import type { ServerTracing } from '../tracing/server-tracing.js';
import type { DeliveryAttemptObservation } from './attempt-outcome.js';
import type { AttemptTimer } from './post-delivery.js';

// The delivery worker's options, their defaults and its interface (the worker itself is
// delivery-worker.ts).

/**
 * Default time one attempt may take, connection to answer: 15 seconds, an endpoint's
 * `timeoutSeconds` when it was given none.
 */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = WEBHOOK_ENDPOINT_LIMITS.defaultTimeoutSeconds * 1000;
/** @internal The longest `timeoutSeconds` an endpoint may have, in milliseconds: 30 seconds. */
export const MAX_ATTEMPT_TIMEOUT_MS = WEBHOOK_ENDPOINT_LIMITS.maxTimeoutSeconds * 1000;
/** Default most attempts one worker has in flight to one endpoint: 4. */
export const DEFAULT_ENDPOINT_CONCURRENCY = 4;
/**
 * Default run of failures after which an endpoint is disabled: every attempt failing for 5 days.
 */
export const DEFAULT_AUTO_DISABLE_AFTER_MS = 5 * 86_400_000;
/**
 * Default number of attempts one worker makes at the same time: 128. That is 32 endpoints at the
 * per-endpoint default of 4 (`--endpoint-concurrency`), so that the endpoints' own
 * limits, not this one, hold a backlog back; and each attempt records its outcome in one
 * transaction when it ends, so that 128 ending at once take at most half of the database's
 * queue of 256 waiting queries, leaving the rest to requests. `--delivery-concurrency` sets it.
 */
export const DEFAULT_DELIVERY_CONCURRENCY = 128;
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
   * The wait before each retry, in seconds (`--delivery-retry-delays 1s,5s,30s`,
   * `DELIVERY_RETRY_DELAYS`, read by `parseRetryDelays`); after the last one the delivery is dead. Defaults to
   * `DEFAULT_RETRY_DELAYS_SECONDS` (11 retries over about 3.3 days). Each wait is spread by
   * ±20 %.
   */
  retryDelays?: readonly number[];
  /**
   * The most any attempt may take, in milliseconds (`--delivery-timeout`), whatever its
   * endpoint's `timeoutSeconds`. By default none: each attempt is ended after its endpoint's
   * `timeoutSeconds` (1 to 30, 15 unless set), and times out as `timeout`.
   */
  attemptTimeoutMs?: number;
  /**
   * Starts each attempt's timeout, for tests that end an attempt when they choose rather than
   * wait for real time; defaults to `setTimeout`. It is given the attempt's timeout in
   * milliseconds.
   */
  attemptTimer?: AttemptTimer;
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
  /**
   * Attempts made at the same time by this worker, all endpoints together
   * (`--delivery-concurrency`, `DELIVERY_CONCURRENCY`); defaults to
   * {@link DEFAULT_DELIVERY_CONCURRENCY} (128). When one ends and due deliveries wait, its slot
   * is claimed again at once.
   */
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
   * worker may take it (the holder was killed). Defaults to the longest attempt timeout (30 s, or
   * `attemptTimeoutMs` if shorter) plus 5 s (the time to record the attempt).
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
  /**
   * Told after each attempt how it ended (the metrics count them); called once per attempt,
   * after its record was written or failed to be. Never throws into the worker.
   */
  onAttempt?: (attempt: DeliveryAttemptObservation) => void;
  /**
   * Told each time a PostgreSQL notification wakes the worker: another instance committed
   * outbox events (`reconnected: false`), or its listening connection, lost, listens again and
   * it looks for what it may have missed (`reconnected: true`). For tests and diagnostics; never
   * told on PGlite, where this process's own writes wake the worker directly.
   */
  onNotification?: (notification: { reconnected: boolean }) => void;
  /**
   * The server's traces (see `startTracing`): each attempt is a span, a child of the request that
   * wrote its event, and the webhook carries that span's `traceparent` header. Without it no span
   * is made and no `traceparent` is sent.
   */
  tracing?: ServerTracing;
  /**
   * Told about a failure of the worker itself (storage unreachable); it carries on, and looks
   * again after the poll interval, doubled by each failure in a row up to 30 seconds, or at the
   * next wake-up (on PostgreSQL, its listening connection's return wakes it).
   */
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

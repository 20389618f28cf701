import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';
import {
  type DeliveryAttemptObservation,
  WEBHOOK_ATTEMPT_OUTCOMES,
} from '../delivery/attempt-outcome.js';
import type { ReceiptVerdictName } from '../receipts/receipt-verdicts.js';
import type { Database } from '../storage/database.js';
import { readOutboxBacklog } from '../stores/outbox-store.js';
import { countEndpointsByState } from '../stores/webhook-endpoint-store.js';

/** How a sign-in attempt ended, as `followup_sign_in_attempts_total{outcome}` counts it. */
export type SignInOutcome = 'success' | 'failure' | 'throttled';

/** One answered HTTP request, as the request metrics count it. */
export interface ObservedRequest {
  /** The request's method. */
  method: string;
  /** The route's pattern (`/api/contacts/:id`), or `unmatched`: never a raw URL. */
  route: string;
  /** The response's status. */
  status: number;
  /** From the request's arrival to its answer, in seconds. */
  seconds: number;
}

/** Options of {@link createServerMetrics}. */
export interface ServerMetricsOptions {
  /** Where the gauges of the outbox and the endpoints are read, at each scrape. */
  database: Database;
  /** The time the age of the oldest pending event is measured with; the system clock by default. */
  clock?: Clock;
  /** Told when a gauge could not be read from the database (it then reads `NaN`). */
  onError?: (error: unknown) => void;
}

/**
 * The Prometheus metrics of one server instance, in a registry of its own (never prom-client's
 * global one, so that several servers in one process keep their counts apart). `buildServer`
 * counts requests, EHR receipts, inbox messages and sign-ins through it, the delivery worker its
 * attempts (`onAttempt`), and `listenForMetrics` serves {@link ServerMetrics.scrape}.
 */
export interface ServerMetrics {
  /** The registry every metric of this instance is in. */
  readonly registry: Registry;
  /** The `Content-Type` of {@link ServerMetrics.scrape}'s text (Prometheus text format 0.0.4). */
  readonly contentType: string;
  /** Every metric now, in the Prometheus text format; the database gauges are read first. */
  scrape(): Promise<string>;
  /** Counts an answered request and its duration. */
  observeRequest(request: ObservedRequest): void;
  /** Counts a delivery attempt, and for a success the time from the event's commit. */
  observeAttempt(attempt: DeliveryAttemptObservation): void;
  /** Counts an EHR receipt by vendor (`unknown` for a key no profile has) and verdict. */
  observeReceipt(receipt: { vendor: string; verdict: ReceiptVerdictName }): void;
  /** Counts a message stored by the inbox webhook. */
  observeInboxMessage(): void;
  /** Counts a sign-in attempt with a password. */
  observeSignIn(outcome: SignInOutcome): void;
}

// A receipt's verdict as the metric names its outcome.
const receiptOutcomes: Record<ReceiptVerdictName, string> = {
  valid: 'accepted',
  replayed: 'replay',
  invalid_signature: 'bad_signature',
  unknown_vendor: 'unsupported',
  vendor_not_supported: 'unsupported',
};

/**
 * Seconds from an event's commit to its first successful attempt: from tens of milliseconds (a
 * subscriber that answers at once) to the retry schedule's days.
 */
const DELIVERY_SECONDS_BUCKETS = [
  0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21_600, 86_400, 259_200,
];

/**
 * Creates the metrics of one server instance: the request, delivery, receipt, inbox and sign-in
 * counters, the gauges read from the database at each scrape, and prom-client's default process
 * and Node metrics.
 *
 * @example
 * ```ts
 * const metrics = createServerMetrics({ database });
 * const app = buildServer({ database, metrics });
 * const worker = createDeliveryWorker({ database, onAttempt: metrics.observeAttempt });
 * const listener = await listenForMetrics(metrics, { port: 9464 });
 * ```
 */
export function createServerMetrics(options: ServerMetricsOptions): ServerMetrics {
  const { database } = options;
  const clock = options.clock ?? systemClock;
  const onError = options.onError ?? (() => {});
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const requests = new Counter({
    name: 'followup_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  });
  const requestSeconds = new Histogram({
    name: 'followup_http_request_duration_seconds',
    help: 'Time from a request to its answer, by method and route pattern.',
    labelNames: ['method', 'route'] as const,
    registers,
  });
  const attempts = new Counter({
    name: 'followup_webhook_attempts_total',
    help: 'Outbound webhook delivery attempts, by outcome.',
    labelNames: ['outcome'] as const,
    registers,
  });
  // Every outcome from the start, at 0: a rate over a series that appears late reads wrong.
  for (const outcome of WEBHOOK_ATTEMPT_OUTCOMES) attempts.inc({ outcome }, 0);
  const deliverySeconds = new Histogram({
    name: 'followup_webhook_delivery_seconds',
    help: "Time from an event's commit to its delivery's first successful attempt.",
    buckets: DELIVERY_SECONDS_BUCKETS,
    registers,
  });
  const receipts = new Counter({
    name: 'followup_ehr_receipts_total',
    help: 'EHR webhook receipts, by vendor key (unknown for a key without a profile) and outcome.',
    labelNames: ['vendor', 'outcome'] as const,
    registers,
  });
  const inboxMessages = new Counter({
    name: 'followup_inbox_messages_total',
    help: 'Messages stored by the inbox webhook.',
    registers,
  });
  const signIns = new Counter({
    name: 'followup_sign_in_attempts_total',
    help: 'Sign-in attempts with a password, by outcome.',
    labelNames: ['outcome'] as const,
    registers,
  });
  for (const outcome of ['success', 'failure', 'throttled'] as const) signIns.inc({ outcome }, 0);

  // The gauges read from the database: the same on every instance of one PostgreSQL database.
  // A failed read leaves NaN, which Prometheus stores as such, rather than a stale number.
  const pendingEvents = new Gauge({
    name: 'followup_outbox_pending_events',
    help: 'Outbox events committed and not yet fanned out to deliveries (counted up to 100000).',
    registers,
  });
  const oldestPending = new Gauge({
    name: 'followup_outbox_oldest_pending_seconds',
    help: 'Age of the oldest outbox event not yet fanned out to deliveries; 0 when there is none.',
    registers,
  });
  const endpoints = new Gauge({
    name: 'followup_webhook_endpoints',
    help: 'Webhook endpoints by state: active, failing (active, every attempt failing), disabled.',
    labelNames: ['state'] as const,
    registers,
  });
  new Gauge({
    name: 'followup_database_queued_queries',
    help: 'Queries and transactions waiting for their turn at the database.',
    registers,
    collect() {
      this.set(database.queuedQueries?.() ?? 0);
    },
  });

  async function readDatabaseGauges(): Promise<void> {
    const [backlog, states] = await Promise.allSettled([
      readOutboxBacklog(database),
      countEndpointsByState(database),
    ]);
    if (backlog.status === 'fulfilled') {
      const { pending, oldestCreatedAt } = backlog.value;
      pendingEvents.set(pending);
      const age =
        oldestCreatedAt === undefined ? 0 : (clock.now() - Date.parse(oldestCreatedAt)) / 1000;
      oldestPending.set(Math.max(0, age));
    } else {
      onError(backlog.reason);
      pendingEvents.set(Number.NaN);
      oldestPending.set(Number.NaN);
    }
    for (const state of ['active', 'failing', 'disabled'] as const) {
      if (states.status === 'fulfilled') endpoints.set({ state }, states.value[state]);
      else endpoints.set({ state }, Number.NaN);
    }
    if (states.status === 'rejected') onError(states.reason);
  }

  return {
    registry,
    contentType: registry.contentType,
    async scrape() {
      await readDatabaseGauges();
      return registry.metrics();
    },
    observeRequest({ method, route, status, seconds }) {
      // About 1 % of a request's CPU (a profile of the list and create benchmarks). Children
      // cached per series (`requests.labels(...)`) are no cheaper: prom-client 15's children hash
      // their labels on every call as `inc(labels)` does, and the cache's key costs more still.
      requests.inc({ method, route, status });
      requestSeconds.observe({ method, route }, seconds);
    },
    observeAttempt({ outcome, deliveredAfterMs }) {
      attempts.inc({ outcome });
      if (deliveredAfterMs !== undefined)
        deliverySeconds.observe(Math.max(0, deliveredAfterMs) / 1000);
    },
    observeReceipt({ vendor, verdict }) {
      const known = verdict !== 'unknown_vendor';
      receipts.inc({ vendor: known ? vendor : 'unknown', outcome: receiptOutcomes[verdict] });
    },
    observeInboxMessage() {
      inboxMessages.inc();
    },
    observeSignIn(outcome) {
      signIns.inc({ outcome });
    },
  };
}

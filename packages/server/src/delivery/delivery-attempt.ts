import type { LookupFunction } from 'node:net';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { Database } from '../storage/database.js';
import type { ClaimedRow } from '../stores/delivery-claim-store.js';
import { startDeliveryAttemptSpan } from '../tracing/delivery-attempt-span.js';
import type { ServerTracing } from '../tracing/server-tracing.js';
import { attemptOutcome, type DeliveryAttemptObservation } from './attempt-outcome.js';
import { createAttemptRecorder } from './attempt-recorder.js';
import { buildDeliveryRequest, type DeliveryRequest } from './delivery-request.js';
import { type AttemptTimer, type DeliveryAttemptResult, postDelivery } from './post-delivery.js';
import { retryAfterMs } from './retry-after.js';
import { retryDelayMs } from './retry-schedule.js';
import { signingSecrets } from './signing-secrets.js';
import { withStaticHeaders } from './static-headers.js';

/** @internal What {@link createDeliveryAttempter}'s attempts need: the worker's resolved options. */
export interface DeliveryAttempterOptions {
  database: Database;
  clock: Clock;
  newId: IdGenerator;
  /** The retry schedule, in seconds. */
  schedule: readonly number[];
  random: () => number;
  /**
   * The most any attempt may take, in milliseconds (`--delivery-timeout`), or `undefined`: each
   * attempt is ended after its endpoint's `timeoutSeconds`, or this if it is shorter.
   */
  maxTimeoutMs: number | undefined;
  /** Starts each attempt's timeout (a test's, or a real `setTimeout`). */
  timer?: AttemptTimer | undefined;
  autoDisableAfterMs: number;
  allowPrivate: boolean;
  allowInsecure: boolean;
  lookup: LookupFunction | undefined;
  onError: (error: unknown) => void;
  onAttempt?: ((attempt: DeliveryAttemptObservation) => void) | undefined;
  tracing?: ServerTracing | undefined;
  /** The most attempts one transaction records: the worker's concurrency. */
  maxBatch: number;
}

/**
 * @internal The signed request of an attempt of a claimed delivery begun at `startedAt` (epoch
 * milliseconds): its event's body, signed with the endpoint's secrets at that time. The worker's
 * attempts and the start's warm-up (`delivery-warm-up.ts`) build it alike.
 */
export function claimedDeliveryRequest(row: ClaimedRow, startedAt: number): DeliveryRequest {
  return buildDeliveryRequest(
    {
      id: row.id,
      event: row.event,
      eventId: row.event_id,
      createdAt: row.event_created_at,
      data: row.data,
      previousAttributes: row.previous_attributes,
      payload: row.payload,
    },
    { secrets: signingSecrets(row, startedAt), timestamp: Math.floor(startedAt / 1000) },
  );
}

/**
 * @internal Makes one attempt of a claimed delivery: builds the signed request, posts it, and
 * records the attempt, the delivery's new state (delivered, a retry at the schedule's time or
 * the subscriber's `Retry-After`, or dead) and the endpoint's health in one transaction, with
 * the attempts that ended while the last one was written (see attempt-recorder.ts). Never
 * rejects: a failure to record is told to `onError`, and the lease running out makes the
 * delivery due again, with the same id.
 */
export function createDeliveryAttempter(
  options: DeliveryAttempterOptions,
): (row: ClaimedRow) => Promise<void> {
  const { clock, schedule, random } = options;
  const recordAttempt = createAttemptRecorder({
    database: options.database,
    autoDisableAfterMs: options.autoDisableAfterMs,
    clock,
    newId: options.newId,
    maxBatch: options.maxBatch,
  });

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
    await recordAttempt({
      attempt: {
        deliveryId: row.id,
        startedAt: new Date(startedAt),
        durationMs: result.durationMs,
        status: result.status ?? null,
        error: result.error ?? null,
        responseExcerpt: result.responseExcerpt ?? null,
      },
      health: { endpointId: row.endpoint_id, deliveryId: row.id, result, now },
      outcome: {
        id: row.id,
        leaseUntil: row.lease_until,
        state,
        nextAttemptAt: wait === undefined ? null : new Date(now + wait),
        status: result.status ?? null,
        error: result.error ?? null,
        now: new Date(now),
      },
    });
  }

  // Told after the record, whether or not it was written: the attempt was made either way.
  function observe(row: ClaimedRow, result: DeliveryAttemptResult): void {
    if (options.onAttempt === undefined) return;
    const outcome = attemptOutcome(result);
    const deliveredAfterMs =
      outcome === 'success' ? clock.now() - Date.parse(row.event_created_at) : undefined;
    try {
      options.onAttempt(
        deliveredAfterMs === undefined ? { outcome } : { outcome, deliveredAfterMs },
      );
    } catch (error) {
      options.onError(error);
    }
  }

  // The endpoint's own timeout (1 to 30 s, 15 by default), within the worker's ceiling if it has one.
  function attemptTimeoutMs(row: ClaimedRow): number {
    const own = row.timeout_seconds * 1000;
    return options.maxTimeoutMs === undefined ? own : Math.min(own, options.maxTimeoutMs);
  }

  return async function attempt(row: ClaimedRow): Promise<void> {
    const startedAt = clock.now();
    const request = claimedDeliveryRequest(row, startedAt);
    // The attempt's span, when traces are on: its traceparent is one more header, outside what
    // the signature covers (the id, the timestamp and the body), so receivers verify as before.
    const span =
      options.tracing &&
      startDeliveryAttemptSpan(options.tracing, {
        deliveryId: row.id,
        endpointId: row.endpoint_id,
        eventKind: row.event,
        attemptNumber: row.attempts + 1,
        traceContext: row.trace_context,
      });
    const result = await postDelivery({
      url: row.url,
      body: request.body,
      // The endpoint's static headers first, ours over them: they cannot replace a signature.
      headers: withStaticHeaders(
        row.headers,
        span ? { ...request.headers, ...span.headers } : request.headers,
      ),
      timeoutMs: attemptTimeoutMs(row),
      ...(options.timer ? { timer: options.timer } : {}),
      allowPrivate: options.allowPrivate,
      allowInsecure: options.allowInsecure,
      ...(options.lookup ? { lookup: options.lookup } : {}),
    });
    try {
      await (span
        ? span.within(() => record(row, startedAt, result))
        : record(row, startedAt, result));
    } catch (error) {
      // Not recorded: the lease runs out and the delivery is made again, with the same id.
      options.onError(error);
    }
    span?.end({ outcome: attemptOutcome(result), status: result.status });
    observe(row, result);
  };
}

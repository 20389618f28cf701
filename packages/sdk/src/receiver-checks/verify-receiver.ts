import { ConfigurationError } from '../follow-up-error.js';
import { ENDPOINT_EVENT_KINDS, WEBHOOK_EVENT_KINDS } from '../wire/event-kinds.js';
import { postDelivery } from './post-delivery.js';
import { type CheckContext, CONTRACT_CHECKS, eventKindCheck } from './receiver-checks.js';
import type { ReceiverCheck, ReceiverReport } from './receiver-report.js';
import { largestSampleEvent, sampleEvent } from './sample-events.js';
import { isSigningSecret } from './signing-secret.js';

// What an endpoint subscribed to `*` takes: every kind but the operational ones.
const DEFAULT_RECEIVER_KINDS = WEBHOOK_EVENT_KINDS.filter(
  (kind) => !(ENDPOINT_EVENT_KINDS as readonly string[]).includes(kind),
);

/**
 * The server's default time limit of one delivery attempt, in milliseconds (its
 * `DEFAULT_ATTEMPT_TIMEOUT_MS`): a receiver slower than this is cut off and retried.
 *
 * @example
 * ```ts
 * const report = await verifyReceiver({ url, secret, timeoutMs: SERVER_ATTEMPT_TIMEOUT_MS });
 * ```
 */
export const SERVER_ATTEMPT_TIMEOUT_MS = 15_000;

/**
 * Options of {@link verifyReceiver}.
 *
 * @example
 * ```ts
 * const options: VerifyReceiverOptions = { url: 'http://localhost:3000/webhooks', secret: 'whsec_…' };
 * ```
 */
export interface VerifyReceiverOptions {
  /** The receiver's URL (`http:` or `https:`). */
  url: string | URL;
  /** The signing secret the receiver verifies with: `whsec_` and the base64 of 32 bytes. */
  secret: string;
  /**
   * The event kinds to deliver one of each: `GET /api/event-types` of your server says which it
   * sends. Defaults to every kind of this version's wire contract (`WEBHOOK_EVENT_KINDS`) that an
   * endpoint subscribed to `*` takes: the operational `endpoint.*` kinds (`ENDPOINT_EVENT_KINDS`)
   * reach only the endpoints that list them, so name them here to check a receiver of those. A
   * kind it has no sample body of is reported `skip`.
   */
  eventKinds?: readonly string[];
  /** The `fetch` that posts the deliveries; the global one by default. */
  fetch?: typeof fetch;
  /**
   * The time of the checks in milliseconds since the epoch (signature timestamps, answer
   * times); `Date.now` by default.
   */
  now?: () => number;
  /**
   * The most the server waits for an answer, in milliseconds (its attempt timeout, 15 s by
   * default): a slower answer fails the `response-time` check.
   */
  timeoutMs?: number;
}

function percentile50(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] as number;
}

/**
 * Checks a webhook receiver against the FollowUp delivery contract, as `followup
 * verify-receiver` does: one valid delivery of each event kind (answered 2xx), the same delivery
 * twice (2xx both times, else a warning), a bad signature, a wrong secret, a timestamp 5.5
 * minutes old or ahead, no signature, a body changed by one byte (each refused with 4xx; a 2xx
 * fails), two signatures during a rotation, each signature scheme alone and the server's largest
 * event (2xx), and the answer times against the server's timeout. Every delivery is signed by
 * `@followup/webhooks` as the server signs them.
 *
 * @returns The report; `ok` is `false` when a check failed. Nothing is thrown for a failing or
 *   unreachable receiver: that is a failed check.
 * @throws `ConfigurationError` (of `@followup/sdk`) for a URL or a secret of the wrong form,
 *   before sending anything.
 * @example
 * ```ts
 * import { verifyReceiver } from '@followup/sdk/receiver-checks';
 *
 * const report = await verifyReceiver({ url: 'http://localhost:3000/webhooks', secret: process.env.WEBHOOK_SECRET! });
 * for (const check of report.checks) console.log(check.status, check.name, check.detail);
 * ```
 */
export async function verifyReceiver(options: VerifyReceiverOptions): Promise<ReceiverReport> {
  const url = receiverUrl(options.url);
  if (!isSigningSecret(options.secret)) {
    throw new ConfigurationError({
      message: 'secret must be a signing secret: whsec_ and the base64 of 32 bytes.',
    });
  }
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? SERVER_ATTEMPT_TIMEOUT_MS;
  const takenTimes: number[] = [];
  const stamp = () => ({
    eventId: `evt_check_${crypto.randomUUID().replaceAll('-', '')}`,
    createdAt: new Date(now()).toISOString(),
  });
  const context: CheckContext = {
    secret: options.secret,
    nowSeconds: () => Math.floor(now() / 1000),
    sample: (kind) => sampleEvent(kind, stamp()),
    largest: () => largestSampleEvent(stamp()),
    send: (delivery) =>
      postDelivery(url, delivery, { fetch: options.fetch, now, timeoutMs: timeoutMs + 5_000 }),
  };
  const kinds = options.eventKinds ?? DEFAULT_RECEIVER_KINDS;
  const checks: ReceiverCheck[] = [];
  for (const definition of [...kinds.map(eventKindCheck), ...CONTRACT_CHECKS]) {
    const result = await definition.run(context);
    // Times of the answers to deliveries it should take: a refusal may well be quicker.
    if (definition.expected === '2xx' && result.httpStatus !== null && result.durationMs !== null) {
      takenTimes.push(result.durationMs);
    }
    checks.push({
      id: definition.id,
      name: definition.name,
      expected: definition.expected,
      ...result,
    });
  }
  const p50Ms = percentile50(takenTimes);
  const maxMs = takenTimes.length === 0 ? null : Math.max(...takenTimes);
  checks.push(timingCheck(p50Ms, maxMs, timeoutMs));
  const count = (status: ReceiverCheck['status']) =>
    checks.filter((check) => check.status === status).length;
  const summary = {
    passed: count('pass'),
    failed: count('fail'),
    warnings: count('warn'),
    skipped: count('skip'),
  };
  return {
    url: url.href,
    ok: summary.failed === 0,
    checks,
    summary,
    timing: { p50Ms, maxMs, timeoutMs },
  };
}

function receiverUrl(value: string | URL | undefined): URL {
  let url: URL | undefined;
  try {
    url = new URL(value ?? '');
  } catch {}
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ConfigurationError({ message: 'url must be an http: or https: URL.' });
  }
  return url;
}

function timingCheck(p50Ms: number | null, maxMs: number | null, timeoutMs: number): ReceiverCheck {
  const base = {
    id: 'response-time',
    name: 'time to answer',
    expected: 'time' as const,
    httpStatus: null,
    durationMs: maxMs,
  };
  if (maxMs === null || p50Ms === null) {
    return { ...base, status: 'skip', detail: 'No delivery was answered 2xx to time.' };
  }
  const figures = `p50 ${p50Ms} ms, max ${maxMs} ms; the server waits ${timeoutMs / 1000} s`;
  if (maxMs >= timeoutMs) {
    return {
      ...base,
      status: 'fail',
      detail: `${figures}: a delivery that slow is cut off and retried. Answer first, work after.`,
    };
  }
  if (maxMs >= timeoutMs / 2) {
    return {
      ...base,
      status: 'warn',
      detail: `${figures}: close to the limit; answer first, work after.`,
    };
  }
  return { ...base, status: 'pass', detail: `${figures}.` };
}

import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { addressRefusal, guardedLookup } from './endpoint-address.js';

/** What one delivery attempt came to. It never holds a secret or the body. */

/** The `User-Agent` of every delivery attempt. */
export const DELIVERY_USER_AGENT = 'FollowUp-Webhooks/1';
export interface DeliveryAttemptResult {
  /** `delivered` for any 2xx answer; `failed` for anything else, to be retried. */
  readonly outcome: 'delivered' | 'failed';
  /** The subscriber's HTTP status, when it answered. */
  readonly status: number | undefined;
  /** Time from the start of the attempt to its end, in milliseconds. */
  readonly durationMs: number;
  /** Why it failed, when it did not get an answer: a short code such as `timeout`. */
  readonly error: string | undefined;
  /** The first {@link RESPONSE_EXCERPT_BYTES} bytes of the subscriber's answer, when it sent one. */
  readonly responseExcerpt?: Buffer;
  /** The `Retry-After` header of a 429 or 503 answer, as sent. */
  readonly retryAfter?: string;
}

/** How much of a subscriber's answer is kept with the attempt: the first 4 KiB. */
export const RESPONSE_EXCERPT_BYTES = 4 * 1024;

/**
 * Starts the timer that ends an attempt: calls `onTimeout` after `milliseconds` unless the
 * returned function cancels it first. The default is `setTimeout`; a test passes its own to end
 * an attempt when it chooses, without waiting for real time.
 */
export type AttemptTimer = (milliseconds: number, onTimeout: () => void) => () => void;

/** The default {@link AttemptTimer}: a real `setTimeout`. */
export const realAttemptTimer: AttemptTimer = (milliseconds, onTimeout) => {
  const timer = setTimeout(onTimeout, milliseconds);
  return () => clearTimeout(timer);
};

/** Options of {@link postDelivery}. */
export interface PostDeliveryOptions {
  /** The endpoint's URL (already checked by `checkEndpointUrl`). */
  readonly url: string;
  /** The exact JSON body that was signed. */
  readonly body: string;
  /** The delivery's headers (`X-Service-Event`, `X-Service-Delivery`, `X-Service-Signature`). */
  readonly headers: Readonly<Record<string, string>>;
  /** The whole attempt (connect, send, answer, body) must end within this many milliseconds. */
  readonly timeoutMs: number;
  /** Whether loopback and private addresses may be reached (`--allow-private-endpoints`). */
  readonly allowPrivate: boolean;
  /**
   * Whether `http:` may reach public addresses (`--allow-insecure-endpoints`); without it an
   * `http:` endpoint is reached only on a private address where those are allowed. Off by default.
   */
  readonly allowInsecure?: boolean;
  /** Name resolution, for tests; defaults to the system resolver behind the address guard. */
  readonly lookup?: LookupFunction;
  /** Monotonic milliseconds, for durations; defaults to `performance.now`. */
  readonly now?: () => number;
  /** Starts the attempt's timeout; defaults to {@link realAttemptTimer}. */
  readonly timer?: AttemptTimer;
}

/** Most bytes of a subscriber's answer that are read; the rest is discarded unread. */
const MAX_ANSWER_BYTES = 64 * 1024;

// Connections are kept alive between attempts. A pooled connection goes to the address that was
// checked when it opened, so reusing it cannot reach anywhere new; each address policy has pools
// of its own, so a connection opened under a looser policy never serves an attempt under a
// stricter one.
const agents = new Map<string, HttpAgent>();

function agentFor(secure: boolean, allowPrivate: boolean, allowInsecure: boolean): HttpAgent {
  const key = `${secure}/${allowPrivate}/${allowInsecure}`;
  let agent = agents.get(key);
  if (agent === undefined) {
    agent = secure
      ? new HttpsAgent({ keepAlive: true, maxSockets: 32 })
      : new HttpAgent({ keepAlive: true, maxSockets: 32 });
    agents.set(key, agent);
  }
  return agent;
}

function failureCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Za-z0-9_]{1,64}$/.test(code) ? code : 'request_failed';
}

/**
 * Makes one delivery attempt: POSTs the signed body to the endpoint and reports how it went.
 * Any 2xx is delivered; every other status, a redirect (never followed), a timeout, a refused
 * or dropped connection, and an address that is not public (unless `allowPrivate`) are failures.
 * The address is checked on what the host resolves to at this moment, and the connection goes
 * to that same address. It never throws.
 */
export function postDelivery(options: PostDeliveryOptions): Promise<DeliveryAttemptResult> {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const finish = (
    outcome: 'delivered' | 'failed',
    status: number | undefined,
    error: string | undefined,
    answer: { responseExcerpt?: Buffer; retryAfter?: string } = {},
  ): DeliveryAttemptResult => ({
    outcome,
    status,
    durationMs: Math.round(now() - started),
    error,
    ...answer,
  });

  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    return Promise.resolve(finish('failed', undefined, 'invalid_endpoint_url'));
  }
  const policy = {
    allowPrivate: options.allowPrivate,
    allowInsecure: options.allowInsecure ?? false,
    protocol: url.protocol,
  };
  // A literal address skips name resolution, so it is judged here.
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) !== 0) {
    const refusal = addressRefusal(literal, url.protocol, policy);
    if (refusal !== undefined) return Promise.resolve(finish('failed', undefined, refusal));
  }
  const secure = url.protocol === 'https:';
  const send = secure ? httpsRequest : httpRequest;

  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: DeliveryAttemptResult) => {
      if (settled) return;
      settled = true;
      cancelTimer();
      resolve(result);
    };
    const request = send(url, {
      method: 'POST',
      agent: agentFor(secure, policy.allowPrivate, policy.allowInsecure),
      lookup: options.lookup ?? guardedLookup(policy),
      headers: {
        ...options.headers,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(options.body),
        'user-agent': DELIVERY_USER_AGENT,
      },
    });
    const cancelTimer = (options.timer ?? realAttemptTimer)(options.timeoutMs, () => {
      request.destroy(
        Object.assign(new Error('The endpoint did not answer in time.'), { code: 'timeout' }),
      );
    });
    request.on('error', (error) => settle(finish('failed', undefined, failureCode(error))));
    request.on('response', (response: IncomingMessage) => {
      const status = response.statusCode ?? 0;
      const header = response.headers['retry-after'];
      const retryAfter =
        (status === 429 || status === 503) && typeof header === 'string' ? header : undefined;
      let read = 0;
      const excerpt: Buffer[] = [];
      response.on('data', (chunk: Buffer) => {
        if (read < RESPONSE_EXCERPT_BYTES)
          excerpt.push(chunk.subarray(0, RESPONSE_EXCERPT_BYTES - read));
        read += chunk.length;
        // Past a small cap, stop taking the answer.
        if (read > MAX_ANSWER_BYTES) response.destroy();
      });
      const done = () => {
        const answer = {
          ...(read > 0 ? { responseExcerpt: Buffer.concat(excerpt) } : {}),
          ...(retryAfter === undefined ? {} : { retryAfter }),
        };
        settle(
          status >= 200 && status < 300
            ? finish('delivered', status, undefined, answer)
            : finish('failed', status, undefined, answer),
        );
      };
      response.on('end', done);
      response.on('close', done);
      response.on('error', done);
    });
    request.end(options.body);
  });
}

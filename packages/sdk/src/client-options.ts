import type { FollowUpError } from './follow-up-error.js';
import type { QueryParameter, RequestEvent, ResponseEvent } from './request-options.js';
import type { TracingApi } from './tracing-api.js';

/**
 * What to do when a response does not match this SDK version's schema (unknown fields and
 * unknown enum values always pass):
 *
 * - `'strict'` (default): throw {@link ResponseValidationError}.
 * - `'warn'`: log a warning through the `logger` and return the body as it came.
 * - `'off'`: do not validate; return the body as it came.
 *
 * @example
 * ```ts
 * const client = new FollowUp({ token, baseUrl, validation: 'warn', logger: console });
 * ```
 */
export type Validation = 'strict' | 'warn' | 'off';

/**
 * Where the SDK writes what it does: `console` fits, as does pino or winston. Every method is
 * optional. Lines never contain the token, a secret, a header or a body.
 *
 * @example
 * ```ts
 * const client = new FollowUp({ token, baseUrl, logger: console });
 * ```
 */
export interface Logger {
  /** Each request and response: method, URL, attempt, status, request id, duration. */
  debug?(message: string, fields?: Record<string, unknown>): void;
  /** Retries: attempt, delay, reason. */
  info?(message: string, fields?: Record<string, unknown>): void;
  /** Responses that fail validation in `'warn'` mode. */
  warn?(message: string, fields?: Record<string, unknown>): void;
  /** A webhook handler that failed (`client.webhooks.handler`, without its own `onError`). */
  error?(message: string, fields?: Record<string, unknown>): void;
}

/**
 * What the `onRetry` hook is told before the SDK waits and sends a request again.
 *
 * @example
 * ```ts
 * new FollowUp({
 *   token,
 *   baseUrl,
 *   onRetry: ({ attempt, delayMs, reason, status }) =>
 *     metrics.increment('followup.retry', { attempt, reason, status }),
 * });
 * ```
 */
export interface RetryEvent {
  /** Which retry this is: 1 for the first, 2 for the second, … */
  readonly attempt: number;
  /** How long the SDK waits before it (from `Retry-After`, capped at 60 s, or the backoff). */
  readonly delayMs: number;
  /** `'status'` for a retryable HTTP status, `'connection'` for a network error. */
  readonly reason: 'status' | 'connection';
  /** The status that caused the retry, for `'status'`. */
  readonly status: number | undefined;
  /** The error the attempt ended with. */
  readonly error: FollowUpError;
  /** The request method. */
  readonly method: string;
  /** The request URL. */
  readonly url: string;
}

/**
 * A `fetch`-compatible function. The SDK's transport (ky) calls it, as a plain function, with a
 * `Request` holding the absolute URL, method, headers (the token among them) and body, and a
 * `RequestInit` holding the call's `signal`; it must honour that signal (passing both arguments
 * on to `fetch` does), and report a failed connection as fetch does (a `TypeError`).
 *
 * @example
 * ```ts
 * const client = new FollowUp({ token, baseUrl, fetch: (input, init) => fetch(input, init) });
 * ```
 */
export type FetchLike = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

/**
 * The clock behind the SDK's deadlines and waits: the current time and one-shot timers. The
 * default is the runtime's own (`Date.now`, `setTimeout`); tests pass a manual clock to expire a
 * timeout or end a wait exactly when they choose, instead of racing real timers.
 *
 * @example
 * ```ts
 * const clock: Clock = {
 *   now: () => Date.now(),
 *   setTimer: (callback, ms) => {
 *     const timer = setTimeout(callback, ms);
 *     return () => clearTimeout(timer);
 *   },
 * };
 * const client = new FollowUp({ token, baseUrl, clock });
 * ```
 */
export interface Clock {
  /** The current time in milliseconds since the epoch, as `Date.now()` gives it. */
  now(): number;
  /** Calls `callback` once, `ms` milliseconds from now; the function returned cancels it. */
  setTimer(callback: () => void, ms: number): () => void;
}

/**
 * Options of `new FollowUp(…)`.
 *
 * @example
 * ```ts
 * const client = new FollowUp({
 *   token: process.env.FOLLOWUP_TOKEN!,
 *   baseUrl: 'https://followup.example.com',
 *   timeout: 30_000,
 *   maxRetries: 3,
 * });
 * ```
 */
export interface FollowUpOptions {
  /**
   * A service-account token, `hns_<service account id>.<secret>`. Checked at construction.
   * Defaults to the `FOLLOWUP_TOKEN` environment variable where `process.env` exists.
   */
  token?: string;
  /**
   * Where the service is, e.g. `https://followup.example.com`; API paths are appended to it.
   * Defaults to the `FOLLOWUP_BASE_URL` environment variable where `process.env` exists.
   */
  baseUrl?: string | URL;
  /**
   * Lets `baseUrl` be a plain `http:` URL on a host other than this machine. Without it, only
   * `https:` is accepted, apart from `localhost`, 127.0.0.0/8 and `[::1]`, so that a token and
   * patient data never cross a network unencrypted by mistake.
   *
   * @example
   * ```ts
   * // A service on a private network without TLS, knowingly:
   * new FollowUp({ token, baseUrl: 'http://followup.internal:3000', allowInsecureHttp: true });
   * ```
   */
  allowInsecureHttp?: boolean;
  /**
   * The time budget of one call in milliseconds, covering the request, every retry, the waits
   * between them and reading the body. Each page of a list walk gets its own budget. Default
   * 60 000.
   */
  timeout?: number;
  /** How many times a retryable failure is retried, 0 to 10 (so `maxRetries + 1` attempts). Default 2. */
  maxRetries?: number;
  /**
   * The `fetch` to use, e.g. one with a proxy or instrumentation; defaults to `globalThis.fetch`.
   * A `TypeError` it throws with a runtime's network-failure message is retried like a dropped
   * connection; any other error surfaces at once.
   */
  fetch?: FetchLike;
  /** Aborts every call made by this client, including waits and later pages. */
  signal?: AbortSignal;
  /** Where to log; nothing is logged without one. */
  logger?: Logger;
  /** How responses are validated; default `'strict'`. */
  validation?: Validation;
  /** Called before each retry. */
  onRetry?: (event: RetryEvent) => void;
  /**
   * The source of randomness for the backoff jitter, returning numbers in `[0, 1)`. Defaults to
   * `Math.random`; tests pass a fixed function.
   */
  random?: () => number;
  /**
   * Waits between retries. Defaults to a timer that stops when the signal aborts; the SDK also
   * stops waiting on abort when a replacement ignores the signal. Tests pass an instant one.
   */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /**
   * The time and timers behind `timeout`, the waits between retries (unless `sleep` is given)
   * and the reading of a `Retry-After` date. Defaults to the runtime's `Date.now` and
   * `setTimeout`; tests pass a manual clock.
   */
  clock?: Clock;
  /**
   * Headers sent with every call (names are case-insensitive); a call's `headers` option adds
   * to them and wins on a clash. `Authorization`, `Content-Type` and `Idempotency-Key` are the
   * client's own and cannot be replaced this way.
   *
   * @example
   * ```ts
   * new FollowUp({ token, baseUrl, defaultHeaders: { 'x-tenant': 'north' } });
   * ```
   */
  defaultHeaders?: Readonly<Record<string, string>>;
  /**
   * Query parameters sent with every call; a call's own parameters and its `query` option win on
   * a clash, except one left `undefined`, which counts as not given and leaves the default.
   *
   * @example
   * ```ts
   * new FollowUp({ token, baseUrl, defaultQuery: { debug: 'timing' } });
   * ```
   */
  defaultQuery?: Readonly<Record<string, QueryParameter>>;
  /**
   * Called before each attempt is sent, for logging and tracing: it may add headers (a
   * `traceparent`, say) to `event.headers`. It never sees the token. An exception it throws
   * fails the call.
   *
   * @example
   * ```ts
   * new FollowUp({ token, baseUrl, onRequest: ({ method, url, attempt }) => log.debug({ method, url, attempt }) });
   * ```
   */
  onRequest?: (event: RequestEvent) => void;
  /**
   * Called when each attempt's response arrives, whatever its status, for logging and metrics.
   * An exception it throws fails the call.
   *
   * @example
   * ```ts
   * new FollowUp({ token, baseUrl, onResponse: ({ status, requestId, durationMs }) => log.info({ status, requestId, durationMs }) });
   * ```
   */
  onResponse?: (event: ResponseEvent) => void;
  /**
   * `@opentelemetry/api`, to send the W3C `traceparent` and `tracestate` of the context active
   * where each call is made (read once per call, the same on its retries), written by the
   * propagators registered with the API: the server's span of the request is then a child of
   * yours. Without it no trace header is sent. The SDK never imports the API itself (it is an
   * optional peer), so it runs and bundles the same with or without it; a `traceparent` given in
   * `defaultHeaders` or a call's `headers` wins.
   *
   * @example
   * ```ts
   * import * as api from '@opentelemetry/api';
   * const client = new FollowUp({ token, baseUrl, tracing: api });
   * ```
   */
  tracing?: TracingApi;
}

/**
 * The default time budget of one call, in milliseconds (60 s).
 *
 * @example
 * ```ts
 * const client = new FollowUp({ token, baseUrl, timeout: DEFAULT_TIMEOUT_MS * 2 });
 * ```
 */
export const DEFAULT_TIMEOUT_MS = 60_000;
/**
 * The default number of retries of a retryable failure (2, so 3 attempts).
 *
 * @example
 * ```ts
 * const patient = new FollowUp({ token, baseUrl, maxRetries: DEFAULT_MAX_RETRIES + 3 });
 * ```
 */
export const DEFAULT_MAX_RETRIES = 2;

/**
 * What `JSON.stringify(client)` shows of a {@link FollowUp} client: settings, never the token.
 *
 * @example
 * ```ts
 * const summary: FollowUpSummary = client.toJSON();
 * ```
 */
export interface FollowUpSummary {
  /** The base URL, normalised. */
  baseUrl: string;
  /** The service account the token belongs to. */
  serviceAccountId: string;
  /** The default time budget of a call, in milliseconds. */
  timeout: number;
  /** The default retry count. */
  maxRetries: number;
}

import type { z } from 'zod';
import type { WithResponse } from '../api-promise.js';
import type {
  Clock,
  FetchLike,
  Logger,
  QueryParameter,
  RequestEvent,
  RequestOptions,
  ResponseEvent,
  RetryEvent,
  Validation,
} from '../client-options.js';
import {
  APIConnectionError,
  APITimeoutError,
  APIUserAbortError,
  ConfigurationError,
  FollowUpError,
  ResponseValidationError,
} from '../errors.js';
import { backoffDelay, RETRYABLE_STATUSES } from './backoff.js';
import { clientHeaders } from './client-header.js';
import { jsonGuard } from './json-guard.js';
import { makeAPIError } from './make-api-error.js';
import { isNetworkError } from './network-error.js';
import { parseProblem } from './problem.js';
import { MAX_RETRY_AFTER_MS, parseRetryAfter } from './retry-after.js';

const IDEMPOTENCY_IN_PROGRESS = 'idempotency_in_progress';

import { raceAbort } from './sleep.js';

/** The settings an {@link HttpClient} runs with, already checked. */
export interface HttpClientSettings {
  readonly baseUrl: string;
  readonly token: string;
  readonly timeout: number;
  readonly maxRetries: number;
  readonly fetch: FetchLike | undefined;
  readonly signal: AbortSignal | undefined;
  readonly logger: Logger | undefined;
  readonly validation: Validation;
  readonly onRetry: ((event: RetryEvent) => void) | undefined;
  readonly random: () => number;
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly clock: Clock;
  /** Lower-case names. */
  readonly defaultHeaders: Readonly<Record<string, string>>;
  readonly defaultQuery: Readonly<Record<string, QueryParameter>>;
  readonly onRequest: ((event: RequestEvent) => void) | undefined;
  readonly onResponse: ((event: ResponseEvent) => void) | undefined;
}

/** A query parameter's value: a list repeats the parameter; `undefined` leaves it out. */
export type QueryValue = QueryParameter;

// The headers the client sets itself; a caller's headers never replace them.
const OWN_HEADERS = new Set(['authorization', 'content-type', 'idempotency-key']);

/**
 * Checks headers given as an option and returns them with lower-case names, without the ones
 * the client sets itself.
 */
export function checkHeaders(headers: unknown, where: string): Readonly<Record<string, string>> {
  if (headers === undefined) return {};
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    throw new ConfigurationError({
      message: `${where} must be an object of header names to strings.`,
    });
  }
  const checked: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (
      !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) ||
      typeof value !== 'string' ||
      /[\r\n\0]/.test(value)
    ) {
      throw new ConfigurationError({
        message: `${where}: "${name}" must be a header name with a string value on one line.`,
      });
    }
    const lower = name.toLowerCase();
    if (!OWN_HEADERS.has(lower)) checked[lower] = value;
  }
  return checked;
}

/** One API call. */
export interface RequestSpec<T> {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  readonly path: string;
  /** A value of `readonly string[]` repeats the parameter, once per value. */
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly body?: unknown;
  /** The schema of the success body; without one the body is ignored and `data` is undefined. */
  readonly schema?: z.ZodType<T>;
  readonly headers?: Readonly<Record<string, string>>;
  /** `false` to send no bearer token (the inbox webhook authenticates with its own secret). */
  readonly authenticate?: boolean;
  readonly options?: RequestOptions | undefined;
}

const MAX_TIMEOUT_MS = 2_147_483_647;

/** Checks a timeout option: a whole number of milliseconds between 1 and about 24.8 days. */
export function checkTimeout(timeout: unknown, where: string): number {
  if (
    typeof timeout !== 'number' ||
    !Number.isInteger(timeout) ||
    timeout < 1 ||
    timeout > MAX_TIMEOUT_MS
  ) {
    throw new ConfigurationError({
      message: `${where} must be a whole number of milliseconds between 1 and ${MAX_TIMEOUT_MS}.`,
    });
  }
  return timeout;
}

/** Checks a retry count: a whole number between 0 and 10. */
export function checkMaxRetries(maxRetries: unknown, where: string): number {
  if (
    typeof maxRetries !== 'number' ||
    !Number.isInteger(maxRetries) ||
    maxRetries < 0 ||
    maxRetries > 10
  ) {
    throw new ConfigurationError({ message: `${where} must be a whole number from 0 to 10.` });
  }
  return maxRetries;
}

/** Checks an `Idempotency-Key`: 1 to 255 visible ASCII characters. */
function checkIdempotencyKey(key: unknown): string {
  if (typeof key !== 'string' || !/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new ConfigurationError({
      message: 'idempotencyKey must be 1 to 255 visible ASCII characters, e.g. a UUID.',
    });
  }
  return key;
}

function isAborted(signals: readonly AbortSignal[]): AbortSignal | undefined {
  for (const signal of signals) if (signal.aborted) return signal;
  return undefined;
}

/**
 * The request pipeline: one `fetch` per attempt, and our policy around it: one deadline per
 * call, retries with `Retry-After` or full-jitter backoff, status-to-error mapping and zod
 * validation.
 *
 * It calls `fetch` directly rather than through ky: ky's retry, timeout and error handling were
 * all switched off in favour of this policy, and what was left (building a `Request`, merging
 * headers, composing signals) cost about as much per page as the walk benchmark allows the whole
 * client (bench/results.md times a ky loop beside the SDK).
 */
export class HttpClient {
  readonly #settings: HttpClientSettings;
  // The token lives only here and in `#settings`, never on a public property.
  readonly #authorization: string;
  readonly #fetch: FetchLike;
  readonly #clientHeaders = clientHeaders();

  constructor(settings: HttpClientSettings) {
    this.#settings = settings;
    this.#authorization = `Bearer ${settings.token}`;
    // Either is called as a plain function: a browser's own `fetch`, passed unbound, refuses to
    // run with another object as `this` ("Illegal invocation").
    const custom = settings.fetch;
    this.#fetch =
      custom === undefined
        ? (input, init) => globalThis.fetch(input, init)
        : (input, init) => custom(input, init);
  }

  /** The client's settings without the token. */
  get publicSettings(): { baseUrl: string; timeout: number; maxRetries: number } {
    const { baseUrl, timeout, maxRetries } = this.#settings;
    return { baseUrl, timeout, maxRetries };
  }

  /**
   * Builds the absolute URL of a path and query: the client's `defaultQuery`, then the call's
   * own parameters, then its `query` option, a later one replacing an earlier one of the same
   * name.
   */
  url(
    path: string,
    own?: Readonly<Record<string, QueryValue>>,
    extra?: Readonly<Record<string, QueryValue>>,
  ): string {
    const defaults = this.#settings.defaultQuery;
    let query = own;
    if (extra !== undefined || Object.keys(defaults).length > 0) {
      query = { ...defaults, ...own, ...extra };
    }
    let url = this.#settings.baseUrl + path;
    if (query !== undefined) {
      let separator = '?';
      for (const key in query) {
        const value = query[key];
        if (value === undefined) continue;
        if (typeof value === 'object' && value !== null) {
          for (const each of value) {
            url += `${separator}${encodeURIComponent(key)}=${encodeURIComponent(each)}`;
            separator = '&';
          }
          continue;
        }
        url += `${separator}${encodeURIComponent(key)}=${typeof value === 'number' ? value : encodeURIComponent(String(value))}`;
        separator = '&';
      }
    }
    return url;
  }

  /** Sends one call, with retries, under one signal and one deadline. */
  async request<T>(spec: RequestSpec<T>): Promise<WithResponse<T>> {
    const settings = this.#settings;
    const options = spec.options ?? {};
    const timeout =
      options.timeout === undefined
        ? settings.timeout
        : checkTimeout(options.timeout, 'The timeout option');
    const maxRetries =
      options.maxRetries === undefined
        ? settings.maxRetries
        : checkMaxRetries(options.maxRetries, 'The maxRetries option');
    const method = spec.method;
    if (
      options.query !== undefined &&
      (typeof options.query !== 'object' || options.query === null)
    ) {
      throw new ConfigurationError({ message: 'The query option must be an object.' });
    }
    const url = this.url(spec.path, spec.query, options.query);
    const callHeaders = checkHeaders(options.headers, 'The headers option');
    const userSignals: AbortSignal[] = [];
    if (settings.signal !== undefined) userSignals.push(settings.signal);
    if (options.signal !== undefined) userSignals.push(options.signal);

    const alreadyAborted = isAborted(userSignals);
    if (alreadyAborted !== undefined) {
      throw new APIUserAbortError({
        message: `${method} ${url} was aborted before it was sent.`,
        method,
        url,
        cause: alreadyAborted.reason,
      });
    }

    const clock = settings.clock;
    const deadline = new AbortController();
    const deadlineAt = clock.now() + timeout;
    const cancelDeadline = clock.setTimer(() => deadline.abort(), timeout);
    const signal =
      userSignals.length === 0
        ? deadline.signal
        : AbortSignal.any([...userSignals, deadline.signal]);
    const stopped = (cause: unknown): FollowUpError | undefined => {
      const aborted = isAborted(userSignals);
      if (aborted !== undefined) {
        return new APIUserAbortError({
          message: `${method} ${url} was aborted.`,
          method,
          url,
          cause: aborted.reason,
        });
      }
      if (deadline.signal.aborted) {
        return new APITimeoutError({
          message: `${method} ${url} timed out after ${timeout} ms (the timeout covers retries and waits).`,
          method,
          url,
          cause,
        });
      }
      return undefined;
    };

    // Ours first, then the client's defaults, the call's own and the caller's; the client's own
    // headers (the token, the body's type, the idempotency key) last, so that nothing replaces
    // them.
    const baseHeaders: Record<string, string> = {
      accept: 'application/json',
      ...this.#clientHeaders,
      ...settings.defaultHeaders,
      ...spec.headers,
      ...callHeaders,
    };
    const ownHeaders: Record<string, string> = {};
    if (spec.authenticate !== false) ownHeaders.authorization = this.#authorization;
    let body: string | undefined;
    if (spec.body !== undefined) {
      body = JSON.stringify(spec.body);
      ownHeaders['content-type'] = 'application/json';
    }
    if (method === 'POST') {
      ownHeaders['idempotency-key'] =
        options.idempotencyKey === undefined
          ? globalThis.crypto.randomUUID()
          : checkIdempotencyKey(options.idempotencyKey);
    }
    const onRequest = settings.onRequest;
    const onResponse = settings.onResponse;
    const fixedInit: RequestInit | undefined =
      onRequest === undefined
        ? { method, headers: { ...baseHeaders, ...ownHeaders }, signal }
        : undefined;
    if (fixedInit !== undefined && body !== undefined) fixedInit.body = body;
    const logger = settings.logger;

    try {
      for (let attempt = 1; ; attempt++) {
        let failure: FollowUpError;
        let reason: RetryEvent['reason'];
        let status: number | undefined;
        let retryAfterMs: number | undefined;
        const started = clock.now();
        let phase: 'send' | 'read' = 'send';
        logger?.debug?.('followup: request', { method, url, attempt });
        let hookError: { error: unknown } | undefined;
        let init = fixedInit;
        if (init === undefined) {
          // Each attempt gets its own copy: a hook may add headers (a trace id per attempt).
          const headers = { ...baseHeaders, ...ownHeaders };
          for (const name of OWN_HEADERS) delete headers[name];
          onRequest?.({ method, url, attempt, headers });
          init = { method, headers: { ...headers, ...ownHeaders }, signal };
          if (body !== undefined) init.body = body;
        }
        try {
          const response = await this.#fetch(url, init);
          phase = 'read';
          const requestId = response.headers.get('x-request-id') ?? undefined;
          try {
            onResponse?.({
              method,
              url,
              attempt,
              status: response.status,
              requestId,
              durationMs: clock.now() - started,
              headers: response.headers,
            });
          } catch (error) {
            hookError = { error };
            throw error;
          }
          const text = await response.text();
          logger?.debug?.('followup: response', {
            method,
            url,
            attempt,
            status: response.status,
            requestId,
            durationMs: clock.now() - started,
          });
          if (response.ok) {
            return { data: this.#parse(spec, response, text, url), response, requestId };
          }
          status = response.status;
          retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), clock.now());
          failure = makeAPIError({
            status,
            statusText: response.statusText,
            headers: response.headers,
            problem: parseProblem(text, response.headers.get('content-type')),
            method,
            url,
            retryAfterMs,
          });
          // A 409 idempotency_in_progress means the first request with this key still runs:
          // the same request, with the same key, will get its answer once it is done.
          const inProgress = status === 409 && failure.code === IDEMPOTENCY_IN_PROGRESS;
          if (!RETRYABLE_STATUSES.has(status) && !inProgress) throw failure;
          reason = 'status';
        } catch (caught) {
          // A hook's own exception fails the call as it is, never retried as a network error.
          if (FollowUpError.isInstance(caught) || hookError !== undefined) throw caught;
          const stop = stopped(caught);
          if (stop !== undefined) throw stop;
          // Only a network failure is worth another attempt: one that fetch reports while
          // sending, or a body stream that broke while reading. Anything else is a bug to surface
          // as is.
          const network = phase === 'send' ? isNetworkError(caught) : caught instanceof TypeError;
          if (!network) throw caught;
          failure = new APIConnectionError({
            message: `Could not complete ${method} ${url}: the connection failed.`,
            method,
            url,
            cause: caught,
          });
          reason = 'connection';
        }

        if (attempt > maxRetries) throw failure;
        const delayMs =
          retryAfterMs === undefined
            ? backoffDelay(attempt, settings.random)
            : Math.min(retryAfterMs, MAX_RETRY_AFTER_MS);
        // Waiting past the deadline could only end in a timeout; the real failure says more.
        if (clock.now() + delayMs >= deadlineAt) throw failure;
        const event: RetryEvent = { attempt, delayMs, reason, status, error: failure, method, url };
        logger?.info?.('followup: retrying', { method, url, attempt, delayMs, reason, status });
        settings.onRetry?.(event);
        try {
          await raceAbort(settings.sleep(delayMs, signal), signal);
        } catch (caught) {
          throw stopped(caught) ?? caught;
        }
      }
    } finally {
      cancelDeadline();
    }
  }

  #parse<T>(spec: RequestSpec<T>, response: Response, text: string, url: string): T {
    if (spec.schema === undefined) return undefined as T;
    const context = () => ({
      status: response.status,
      requestId: response.headers.get('x-request-id') ?? undefined,
      method: spec.method,
      url,
    });
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ResponseValidationError({
        ...context(),
        message: `The response to ${spec.method} ${url} is not JSON.`,
        issues: [{ path: [], message: 'The body is not valid JSON.' }],
      });
    }
    const validation = this.#settings.validation;
    if (validation === 'off') return json as T;
    // The common case, a valid body, is checked by a predicate compiled from the schema, which
    // builds nothing; zod itself runs when it says no, to report the issues.
    const guard = jsonGuard(spec.schema);
    if (guard?.(json) === true) return json as T;
    const result = spec.schema.safeParse(json);
    if (result.success) return result.data;
    const issues = result.error.issues.map((issue) => ({
      path: issue.path,
      message: issue.message,
    }));
    const summary = issues
      .slice(0, 3)
      .map((issue) => `${issue.path.map(String).join('.') || '(body)'}: ${issue.message}`)
      .join('; ');
    const message = `The response to ${spec.method} ${url} does not match the schema: ${summary}${issues.length > 3 ? ` (and ${issues.length - 3} more)` : ''}.`;
    if (validation === 'warn') {
      this.#settings.logger?.warn?.(`followup: ${message}`, { ...context(), issues });
      return json as T;
    }
    throw new ResponseValidationError({ ...context(), message, issues });
  }
}

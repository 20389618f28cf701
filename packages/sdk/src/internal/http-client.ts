import type { z } from 'zod';
import type { WithResponse } from '../api-promise.js';
import type { Clock, FetchLike, Logger, RetryEvent, Validation } from '../client-options.js';
import { FollowUpError } from '../follow-up-error.js';
import { APIConnectionError } from '../request-errors.js';
import type { QueryParameter, RequestEvent, ResponseEvent } from '../request-options.js';
import type { QueryValue } from './build-request.js';
import {
  type BuiltRequest,
  buildRequest,
  buildUrl,
  type CallSpec,
  type RequestDefaults,
} from './build-request.js';
import { type CallDeadline, startDeadline } from './call-deadline.js';
import { classifyResponse } from './classify-response.js';
import { clientHeaders } from './client-header.js';
import { decideRetry } from './decide-retry.js';
import { isNetworkError } from './network-error.js';
import { parseBody } from './parse-body.js';
import { type Attempt, createTransport, type SendOnce } from './send-once.js';
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
  /** The active trace context's headers, when the `tracing` option is given. */
  readonly traceHeaders?: (() => Record<string, string>) | undefined;
}

/** One API call. */
export interface RequestSpec<T> extends CallSpec {
  /** The schema of the success body; without one the body is ignored and `data` is undefined. */
  readonly schema?: z.ZodType<T>;
}

/** How one attempt ended, when it did not end the call. */
interface RetryableFailure {
  readonly error: FollowUpError;
  readonly reason: RetryEvent['reason'];
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
}

/**
 * The request pipeline, in named steps: {@link buildRequest} once per call, then per attempt
 * {@link createTransport | send once} (ky, with the client's hooks), {@link classifyResponse}
 * when the status is not 2xx, {@link decideRetry} when it is worth another attempt, and
 * {@link parseBody} for the answer. One signal and one deadline ({@link startDeadline}) cover
 * every attempt and every wait.
 */
export class HttpClient {
  readonly #settings: HttpClientSettings;
  // The token lives only here and in `#settings`, never on a public property.
  readonly #defaults: RequestDefaults;
  readonly #send: SendOnce;

  constructor(settings: HttpClientSettings) {
    this.#settings = settings;
    this.#defaults = {
      baseUrl: settings.baseUrl,
      authorization: `Bearer ${settings.token}`,
      timeout: settings.timeout,
      maxRetries: settings.maxRetries,
      clientHeaders: clientHeaders(),
      defaultHeaders: settings.defaultHeaders,
      defaultQuery: settings.defaultQuery,
      signal: settings.signal,
      traceHeaders: settings.traceHeaders,
    };
    this.#send = createTransport(settings);
  }

  /** The client's settings without the token. */
  get publicSettings(): { baseUrl: string; timeout: number; maxRetries: number } {
    const { baseUrl, timeout, maxRetries } = this.#settings;
    return { baseUrl, timeout, maxRetries };
  }

  /**
   * The absolute URL of a path and query, as a call with them would send it (the client's
   * `defaultQuery` included).
   */
  url(
    path: string,
    own?: Readonly<Record<string, QueryValue>>,
    extra?: Readonly<Record<string, QueryValue>>,
  ): string {
    return buildUrl(this.#settings.baseUrl + path, this.#settings.defaultQuery, own, extra);
  }

  /** Sends one call, with retries, under one signal and one deadline. */
  async request<T>(spec: RequestSpec<T>): Promise<WithResponse<T>> {
    const settings = this.#settings;
    const request = buildRequest(this.#defaults, spec);
    const deadline = startDeadline(request, settings.clock);
    try {
      for (let attempt = 1; ; attempt++) {
        const outcome = await this.#attempt(request, attempt, deadline, spec.schema);
        if (!('reason' in outcome)) return outcome;
        const delayMs = decideRetry({
          attempt,
          maxRetries: request.maxRetries,
          retryAfterMs: outcome.retryAfterMs,
          now: settings.clock.now(),
          deadlineAt: deadline.deadlineAt,
          random: settings.random,
        });
        if (delayMs === undefined) throw outcome.error;
        const { method, url } = request;
        const { reason, status } = outcome;
        settings.logger?.info?.('followup: retrying', {
          method,
          url,
          attempt,
          delayMs,
          reason,
          status,
        });
        settings.onRetry?.({ attempt, delayMs, reason, status, error: outcome.error, method, url });
        try {
          await raceAbort(settings.sleep(delayMs, deadline.signal), deadline.signal);
        } catch (caught) {
          throw deadline.stopped(caught) ?? caught;
        }
      }
    } finally {
      deadline.cancel();
    }
  }

  /**
   * Sends one attempt and reads its answer: the call's result, or a failure worth retrying.
   * Anything else (an error status not worth retrying, a body that does not validate, an
   * exception of a hook, an abort, a timeout, a bug) is thrown.
   */
  async #attempt<T>(
    request: BuiltRequest,
    number: number,
    deadline: CallDeadline,
    schema: z.ZodType<T> | undefined,
  ): Promise<WithResponse<T> | RetryableFailure> {
    const { clock, logger } = this.#settings;
    const { method, url } = request;
    const attempt: Attempt = { request, number, signal: deadline.signal, started: clock.now() };
    logger?.debug?.('followup: request', { method, url, attempt: number });
    let phase: 'send' | 'read' = 'send';
    try {
      const response = await this.#send(attempt);
      phase = 'read';
      const text = await response.text();
      const requestId = response.headers.get('x-request-id') ?? undefined;
      logger?.debug?.('followup: response', {
        method,
        url,
        attempt: number,
        status: response.status,
        requestId,
        durationMs: clock.now() - attempt.started,
      });
      if (response.ok) {
        const { validation } = this.#settings;
        const data = parseBody(response, text, request, { schema, validation, logger });
        return { data, response, requestId };
      }
      const failed = classifyResponse(response, text, request, clock.now());
      if (!failed.retryable) throw failed.error;
      return { ...failed, reason: 'status', status: response.status };
    } catch (caught) {
      // A hook's own exception fails the call as it is, never retried as a network error.
      if (FollowUpError.isInstance(caught) || attempt.hookError !== undefined) throw caught;
      const stop = deadline.stopped(caught);
      if (stop !== undefined) throw stop;
      // Only a network failure is worth another attempt: one that fetch reports while sending,
      // or a body stream that broke while reading. Anything else is a bug to surface as is.
      const network = phase === 'send' ? isNetworkError(caught) : caught instanceof TypeError;
      if (!network) throw caught;
      const error = new APIConnectionError({
        message: `Could not complete ${method} ${url}: the connection failed.`,
        method,
        url,
        cause: caught,
      });
      return { error, reason: 'connection', status: undefined, retryAfterMs: undefined };
    }
  }
}

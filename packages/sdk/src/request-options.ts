/**
 * A query parameter's value: a list repeats the parameter, `undefined` leaves it out.
 *
 * @example
 * ```ts
 * const query: Record<string, QueryParameter> = { tag: ['a', 'b'], page: 2 };
 * ```
 */
export type QueryParameter = string | number | boolean | readonly string[] | undefined;

/**
 * What {@link FollowUpOptions.onRequest} receives before each attempt is sent.
 *
 * @example
 * ```ts
 * const onRequest = (event: RequestEvent) => {
 *   event.headers.traceparent = currentTraceparent();
 * };
 * ```
 */
export interface RequestEvent {
  /** `GET`, `POST`, `PATCH` or `DELETE`. */
  readonly method: string;
  /** The absolute URL, query included. */
  readonly url: string;
  /** 1 for the first attempt, 2 for the first retry… */
  readonly attempt: number;
  /**
   * The headers about to be sent, lower-case names; add or change entries to send them (a trace
   * header, say). The `Authorization` header is not in it and is added afterwards, so that a hook
   * that logs the headers never logs the token.
   */
  readonly headers: Record<string, string>;
}

/**
 * What {@link FollowUpOptions.onResponse} receives when each attempt's answer arrives (before its
 * body is read).
 *
 * @example
 * ```ts
 * const onResponse = ({ method, url, status, durationMs }: ResponseEvent) =>
 *   metrics.timing('followup.request', durationMs, { method, status });
 * ```
 */
export interface ResponseEvent {
  /** `GET`, `POST`, `PATCH` or `DELETE`. */
  readonly method: string;
  /** The absolute URL, query included. */
  readonly url: string;
  /** 1 for the first attempt, 2 for the first retry… */
  readonly attempt: number;
  /** The HTTP status. */
  readonly status: number;
  /** The server's `X-Request-Id`, to quote when asking about this call. */
  readonly requestId: string | undefined;
  /** Milliseconds from sending to the response's headers, by the client's clock. */
  readonly durationMs: number;
  /** The response's headers. */
  readonly headers: Headers;
}

/**
 * Options every call accepts as its last argument.
 *
 * @example
 * ```ts
 * const controller = new AbortController();
 * const contact = await client.contacts.get(id, { signal: controller.signal, timeout: 5_000 });
 * ```
 */
export interface RequestOptions {
  /** Aborts this call (and, for a list, every later page). */
  signal?: AbortSignal;
  /** This call's time budget in milliseconds; overrides the client's. */
  timeout?: number;
  /** This call's retry count; overrides the client's. */
  maxRetries?: number;
  /**
   * The `Idempotency-Key` of a `POST`. The SDK generates one per call when it is not given, and
   * sends the same key on every retry, which is what makes retrying a create safe.
   */
  idempotencyKey?: string;
  /**
   * Headers to add to this call (names are case-insensitive), beside and over the client's
   * `defaultHeaders`. `Authorization`, `Content-Type` and `Idempotency-Key` are the client's own
   * and cannot be replaced this way.
   *
   * @example
   * ```ts
   * await client.contacts.get(id, { headers: { 'x-correlation-id': correlationId } });
   * ```
   */
  headers?: Readonly<Record<string, string>>;
  /**
   * Query parameters to add to this call, over the client's `defaultQuery` and the call's own
   * parameters. A list repeats the parameter.
   *
   * @example
   * ```ts
   * await client.contacts.list({ limit: 10 }, { query: { include: 'experimental' } });
   * ```
   */
  query?: Readonly<Record<string, QueryParameter>>;
}

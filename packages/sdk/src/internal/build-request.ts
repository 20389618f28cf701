import { ConfigurationError } from '../follow-up-error.js';
import type { QueryParameter, RequestOptions } from '../request-options.js';
import {
  checkHeaders,
  checkIdempotencyKey,
  checkMaxRetries,
  checkTimeout,
} from './check-options.js';
import { mergeDefined } from './merge-defined.js';

/** A query parameter's value: a list repeats the parameter; `undefined` leaves it out. */
export type QueryValue = QueryParameter;

/** What a call asks for, before the client's settings and the call's options are applied. */
export interface CallSpec {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  readonly path: string;
  /** A value of `readonly string[]` repeats the parameter, once per value. */
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** `false` to send no bearer token (the inbox webhook authenticates with its own secret). */
  readonly authenticate?: boolean;
  readonly options?: RequestOptions | undefined;
}

/** The client's settings that shape every request. */
export interface RequestDefaults {
  readonly baseUrl: string;
  /** `Bearer <token>`. */
  readonly authorization: string;
  readonly timeout: number;
  readonly maxRetries: number;
  /** The SDK's own headers (`x-followup-client`, `user-agent`). */
  readonly clientHeaders: Readonly<Record<string, string>>;
  /** Lower-case names. */
  readonly defaultHeaders: Readonly<Record<string, string>>;
  readonly defaultQuery: Readonly<Record<string, QueryParameter>>;
  readonly signal: AbortSignal | undefined;
  /** The active trace context's headers (the `tracing` option), read once per call. */
  readonly traceHeaders?: (() => Record<string, string>) | undefined;
}

/** One call, ready to send as many times as its retries need: the same URL, headers and body. */
export interface BuiltRequest {
  readonly method: CallSpec['method'];
  /** The absolute URL, query included. */
  readonly url: string;
  /** Every header to send, lower-case names, the client's own (token, body type, key) included. */
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON text of the body, if any. */
  readonly body: string | undefined;
  /** This call's time budget in milliseconds, covering every attempt and wait. */
  readonly timeout: number;
  readonly maxRetries: number;
  /** The caller's signals: the client's and the call's. */
  readonly signals: readonly AbortSignal[];
}

/**
 * Builds the absolute URL of a path and query: the client's `defaultQuery`, then the call's
 * own parameters, then its `query` option, a later one replacing an earlier one of the same
 * name. A parameter left `undefined` (a list's `sort` the caller did not give, say) replaces
 * nothing: the default underneath is sent.
 */
export function buildUrl(
  baseUrl: string,
  defaults: Readonly<Record<string, QueryValue>>,
  own?: Readonly<Record<string, QueryValue>>,
  extra?: Readonly<Record<string, QueryValue>>,
): string {
  let query = own;
  if (extra !== undefined || Object.keys(defaults).length > 0) {
    query = mergeDefined<Record<string, QueryValue>>(defaults, own, extra);
  }
  let url = baseUrl;
  if (query === undefined) return url;
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
  return url;
}

/**
 * The first step of a call: checks its options and builds what every attempt sends. Headers
 * are ours first, then the client's defaults, the call's own and the caller's; the client's own
 * headers (the token, the body's type, the idempotency key) last, so that nothing replaces them.
 * A POST carries an `Idempotency-Key` (the caller's, or a new UUID), the same on every retry.
 *
 * @throws {@link ConfigurationError} for an option out of range.
 */
export function buildRequest(defaults: RequestDefaults, spec: CallSpec): BuiltRequest {
  const options = spec.options ?? {};
  const timeout =
    options.timeout === undefined
      ? defaults.timeout
      : checkTimeout(options.timeout, 'The timeout option');
  const maxRetries =
    options.maxRetries === undefined
      ? defaults.maxRetries
      : checkMaxRetries(options.maxRetries, 'The maxRetries option');
  if (
    options.query !== undefined &&
    (typeof options.query !== 'object' || options.query === null)
  ) {
    throw new ConfigurationError({ message: 'The query option must be an object.' });
  }
  const method = spec.method;
  const url = buildUrl(
    defaults.baseUrl + spec.path,
    defaults.defaultQuery,
    spec.query,
    options.query,
  );
  const headers: Record<string, string> = {
    accept: 'application/json',
    ...defaults.clientHeaders,
    // Before the caller's headers: a `traceparent` given by hand wins over the active context's.
    ...defaults.traceHeaders?.(),
    ...defaults.defaultHeaders,
    ...spec.headers,
    ...checkHeaders(options.headers, 'The headers option'),
  };
  if (spec.authenticate !== false) headers.authorization = defaults.authorization;
  let body: string | undefined;
  if (spec.body !== undefined) {
    body = JSON.stringify(spec.body);
    headers['content-type'] = 'application/json';
  }
  if (method === 'POST') {
    headers['idempotency-key'] =
      options.idempotencyKey === undefined
        ? globalThis.crypto.randomUUID()
        : checkIdempotencyKey(options.idempotencyKey);
  }
  const signals: AbortSignal[] = [];
  if (defaults.signal !== undefined) signals.push(defaults.signal);
  if (options.signal !== undefined) signals.push(options.signal);
  return { method, url, headers, body, timeout, maxRetries, signals };
}

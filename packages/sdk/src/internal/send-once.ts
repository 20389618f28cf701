import ky, {
  type AfterResponseHook,
  type BeforeRequestHook,
  isNetworkError as isKyNetworkError,
  type Options,
} from 'ky';
import type { Clock, FetchLike } from '../client-options.js';
import type { RequestEvent, ResponseEvent } from '../request-options.js';
import type { BuiltRequest } from './build-request.js';
import { OWN_HEADERS } from './check-options.js';

/** One attempt of a call, as the transport's hooks see it. */
export interface Attempt {
  readonly request: BuiltRequest;
  /** 1 for the first attempt, 2 for the first retry… */
  readonly number: number;
  /** The call's one signal (the caller's and the deadline). */
  readonly signal: AbortSignal;
  /** When it was sent, by the client's clock. */
  readonly started: number;
  /** Set when `onRequest` or `onResponse` threw: the call fails with that error as it is. */
  hookError?: { readonly error: unknown };
}

/** Sends one attempt and resolves with its response (its body not yet read). */
export type SendOnce = (attempt: Attempt) => Promise<Response>;

/** What the transport is built from: the client's `fetch`, clock and hooks. */
export interface TransportOptions {
  readonly fetch: FetchLike | undefined;
  readonly clock: Clock;
  readonly onRequest: ((event: RequestEvent) => void) | undefined;
  readonly onResponse: ((event: ResponseEvent) => void) | undefined;
}

const attemptOf = (context: Record<string, unknown>): Attempt => context.attempt as Attempt;

// `onRequest` as ky's beforeRequest hook: the hook sees the headers without the client's own
// (so a hook that logs them never logs the token) and may add, change or remove the others.
function beforeRequest(onRequest: (event: RequestEvent) => void): BeforeRequestHook {
  return ({ request, options }) => {
    const attempt = attemptOf(options.context);
    try {
      const headers: Record<string, string> = {};
      const sent: string[] = [];
      request.headers.forEach((value, name) => {
        sent.push(name);
        if (!OWN_HEADERS.has(name)) headers[name] = value;
      });
      const { method, url } = attempt.request;
      onRequest({ method, url, attempt: attempt.number, headers });
      for (const name of sent) {
        if (!OWN_HEADERS.has(name) && !Object.hasOwn(headers, name)) request.headers.delete(name);
      }
      for (const name of Object.keys(headers)) {
        if (!OWN_HEADERS.has(name.toLowerCase()))
          request.headers.set(name, headers[name] as string);
      }
    } catch (error) {
      attempt.hookError = { error };
      throw error;
    }
  };
}

// `onResponse` as ky's afterResponse hook: status, headers and timing, before the body is read.
function afterResponse(
  onResponse: (event: ResponseEvent) => void,
  clock: Clock,
): AfterResponseHook {
  return ({ response, options }) => {
    const attempt = attemptOf(options.context);
    try {
      const { method, url } = attempt.request;
      onResponse({
        method,
        url,
        attempt: attempt.number,
        status: response.status,
        requestId: response.headers.get('x-request-id') ?? undefined,
        durationMs: clock.now() - attempt.started,
        headers: response.headers,
      });
    } catch (error) {
      attempt.hookError = { error };
      throw error;
    }
  };
}

/**
 * The transport: ky, for one attempt at a time. The client's `onRequest` and `onResponse` are
 * ky's `beforeRequest` and `afterResponse` hooks; a failure ky reports as its `NetworkError` is
 * passed on as the runtime's own error (its `cause`), so no ky error leaks. ky's retry, timeout
 * and HTTP errors stay off (`retry: 0`, `timeout: false`, `throwHttpErrors: false`), for the
 * reasons and measurements in docs/decisions.md ("The transport: ky's hooks, not its retries,
 * timeouts or HTTP errors"): ky waits and times out on real timers, which neither the injected
 * clock nor the call's one deadline would govern, and its `HTTPError` reads and parses the error
 * body itself, under a timer of its own.
 */
export function createTransport(options: TransportOptions): SendOnce {
  const { fetch: custom, clock, onRequest, onResponse } = options;
  const hooks: { beforeRequest?: BeforeRequestHook[]; afterResponse?: AfterResponseHook[] } = {};
  if (onRequest !== undefined) hooks.beforeRequest = [beforeRequest(onRequest)];
  if (onResponse !== undefined) hooks.afterResponse = [afterResponse(onResponse, clock)];
  // Called as a plain function: a browser's own `fetch`, passed unbound, refuses to run with
  // another object as `this` ("Illegal invocation"); the global one is looked up per call.
  const send: FetchLike =
    custom === undefined
      ? (input, init) => globalThis.fetch(input, init)
      : (input, init) => custom(input, init);
  const withHooks = onRequest !== undefined || onResponse !== undefined;
  return async (attempt) => {
    const { method, url, headers, body } = attempt.request;
    // Only the options in use: ky merges and normalises every option it is given, on every call.
    // The call's signal goes to fetch itself rather than through ky's `signal` option: ky would
    // compose it with a controller of its own on every attempt (`AbortSignal.any`, which its
    // `Request` then follows), a controller that never fires with ky's timeout off. One signal
    // instead of a composite cost about 17 µs of CPU a page in the walk benchmark's setting.
    const options: Options = {
      method,
      headers,
      retry: 0,
      timeout: false,
      throwHttpErrors: false,
      fetch: (request, init) => send(request, { ...init, signal: attempt.signal }),
    };
    if (body !== undefined) options.body = body;
    if (withHooks) {
      options.hooks = hooks;
      options.context = { attempt };
    }
    try {
      return await ky(url, options);
    } catch (error) {
      // ky wraps what it recognises as a network failure in its `NetworkError`, with the
      // runtime's own error as `cause`: the client judges that one itself.
      if (attempt.hookError === undefined && isKyNetworkError(error)) throw error.cause;
      throw error;
    }
  };
}

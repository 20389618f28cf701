import type { SignedDelivery } from './signed-delivery.js';

/**
 * How one attempt of {@link postDelivery} ended: the receiver's status, or why there was none.
 *
 * @example
 * ```ts
 * const outcome = await postDelivery(url, delivery, { timeoutMs: 15_000 });
 * if (outcome.status === undefined) console.log('no answer:', outcome.error);
 * ```
 */
export interface DeliveryOutcome {
  /** The HTTP status, or `undefined` when no answer came. */
  readonly status: number | undefined;
  /** Why no answer came: `timeout`, a connection error's code (`ECONNREFUSED`…), `aborted`. */
  readonly error: string | undefined;
  /** From sending to the answer's headers, in milliseconds (on the `now` of the options). */
  readonly durationMs: number;
}

/**
 * Options of {@link postDelivery}.
 *
 * @example
 * ```ts
 * const options: PostDeliveryOptions = { timeoutMs: 15_000, fetch: myFetch, now: () => clock.now() };
 * ```
 */
export interface PostDeliveryOptions {
  /** The most an attempt may take, in milliseconds of real time, as the server's attempt timeout. */
  readonly timeoutMs: number;
  /** The `fetch` that posts; the global one by default. */
  readonly fetch?: typeof fetch | undefined;
  /** Milliseconds since the epoch, to measure the answer's time; `Date.now` by default. */
  readonly now?: (() => number) | undefined;
  /** Aborts the attempt: it then ends with the error `aborted`. */
  readonly signal?: AbortSignal | undefined;
}

function errorCode(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  return error instanceof Error ? error.name : 'error';
}

/**
 * Posts one signed delivery as the server does, and reads the answer's status (its body is read
 * and dropped). A redirect is not followed, as the server follows none: a 3xx is a failure.
 * Never rejects: a receiver that does not answer is an outcome with an `error`.
 *
 * @example
 * ```ts
 * const delivery = await signDelivery(event, { secrets: [secret], timestamp, deliveryId: 'dlv_1' });
 * const { status, durationMs } = await postDelivery('http://localhost:3000/webhooks', delivery, { timeoutMs: 15_000 });
 * ```
 */
export async function postDelivery(
  url: URL | string,
  delivery: SignedDelivery,
  options: PostDeliveryOptions,
): Promise<DeliveryOutcome> {
  const now = options.now ?? Date.now;
  const controller = new AbortController();
  // A guard against a receiver that never answers, in real time as the server's own
  // (delivery/post-delivery.ts of the server): an injected clock orders and measures, but a hung
  // socket must end whatever a test's clock does.
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  const abortWith = () => controller.abort();
  options.signal?.addEventListener('abort', abortWith, { once: true });
  const started = now();
  try {
    const response = await (options.fetch ?? fetch)(url, {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.body,
      redirect: 'manual',
      signal: controller.signal,
    });
    const durationMs = now() - started;
    await response.arrayBuffer().catch(() => undefined);
    return { status: response.status, error: undefined, durationMs };
  } catch (error) {
    const why = timedOut ? 'timeout' : options.signal?.aborted ? 'aborted' : errorCode(error);
    return { status: undefined, error: why, durationMs: now() - started };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', abortWith);
  }
}

/**
 * Whether an attempt delivered: a 2xx answer.
 *
 * @example
 * ```ts
 * if (!delivered(await postDelivery(url, delivery, { timeoutMs: 15_000 }))) scheduleRetry();
 * ```
 */
export function delivered(outcome: DeliveryOutcome): boolean {
  return outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
}

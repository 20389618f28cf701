import type { CliClock } from './cli-io.js';
import type { SignedDelivery } from './forwarded-delivery.js';

/** @internal How one attempt ended: the receiver's status, or why there was none. */
export interface AttemptOutcome {
  /** The HTTP status, or `undefined` when no answer came. */
  status: number | undefined;
  /** Why no answer came: `timeout`, a connection error's code, `aborted`. */
  error: string | undefined;
  /** From sending to the answer's headers, in milliseconds (on the command's clock). */
  durationMs: number;
}

/** @internal Options of {@link postAttempt}. */
export interface PostAttemptOptions {
  fetch: typeof fetch;
  clock: CliClock;
  /** The most an attempt may take, as the server's attempt timeout. */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

function errorCode(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  return error instanceof Error ? error.name : 'error';
}

/**
 * @internal Posts one signed delivery and reads the answer's status (its body is read and
 * dropped, at most the time limit). A redirect is not followed, as the server does not follow
 * one: a 3xx is a failure.
 */
export async function postAttempt(
  url: URL | string,
  delivery: SignedDelivery,
  options: PostAttemptOptions,
): Promise<AttemptOutcome> {
  const { clock } = options;
  const controller = new AbortController();
  // A guard against a receiver that never answers, in real time as the server's own
  // (delivery/post-delivery.ts): the clock orders the retries and measures, but a hung socket
  // must end whatever a test's clock does.
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  const abortWith = () => controller.abort();
  options.signal?.addEventListener('abort', abortWith, { once: true });
  const started = clock.now();
  try {
    const response = await options.fetch(url, {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.body,
      redirect: 'manual',
      signal: controller.signal,
    });
    const durationMs = clock.now() - started;
    await response.arrayBuffer().catch(() => undefined);
    return { status: response.status, error: undefined, durationMs };
  } catch (error) {
    const why = timedOut ? 'timeout' : options.signal?.aborted ? 'aborted' : errorCode(error);
    return { status: undefined, error: why, durationMs: clock.now() - started };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', abortWith);
  }
}

/** @internal Whether an attempt delivered: a 2xx answer. */
export function delivered(outcome: AttemptOutcome): boolean {
  return outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
}

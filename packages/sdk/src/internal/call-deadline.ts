import type { Clock } from '../client-options.js';
import type { FollowUpError } from '../follow-up-error.js';
import { APITimeoutError, APIUserAbortError } from '../request-errors.js';
import type { BuiltRequest } from './build-request.js';

/** One signal and one deadline for a whole call: every attempt and every wait between them. */
export interface CallDeadline {
  /** Aborts when a caller's signal does or when the time is up. */
  readonly signal: AbortSignal;
  /** When the time is up, by the client's clock. */
  readonly deadlineAt: number;
  /**
   * The error a call ends with when it was stopped (`APIUserAbortError` when a caller's signal
   * aborted, `APITimeoutError` when the time ran out), or `undefined` when it was not.
   */
  stopped(cause: unknown): FollowUpError | undefined;
  /** Cancels the deadline's timer; call once the call has settled. */
  cancel(): void;
}

function firstAborted(signals: readonly AbortSignal[]): AbortSignal | undefined {
  for (const signal of signals) if (signal.aborted) return signal;
  return undefined;
}

/**
 * Starts a call's deadline on `clock`, combined with the caller's signals into one signal.
 *
 * @throws {@link APIUserAbortError} when a caller's signal has already aborted: nothing is sent.
 */
export function startDeadline(request: BuiltRequest, clock: Clock): CallDeadline {
  const { method, url, signals, timeout } = request;
  const alreadyAborted = firstAborted(signals);
  if (alreadyAborted !== undefined) {
    throw new APIUserAbortError({
      message: `${method} ${url} was aborted before it was sent.`,
      method,
      url,
      cause: alreadyAborted.reason,
    });
  }
  const deadline = new AbortController();
  const deadlineAt = clock.now() + timeout;
  const cancel = clock.setTimer(() => deadline.abort(), timeout);
  return {
    signal: signals.length === 0 ? deadline.signal : AbortSignal.any([...signals, deadline.signal]),
    deadlineAt,
    cancel,
    stopped(cause) {
      const aborted = firstAborted(signals);
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
    },
  };
}

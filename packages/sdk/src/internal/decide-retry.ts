import { backoffDelay } from './backoff.js';
import { MAX_RETRY_AFTER_MS } from './retry-after.js';

/** What the retry decision looks at, once an attempt has failed in a way worth retrying. */
export interface RetryQuestion {
  /** The attempt that failed: 1 for the first. */
  readonly attempt: number;
  readonly maxRetries: number;
  /** The server's `Retry-After`, in milliseconds, if it sent one. */
  readonly retryAfterMs: number | undefined;
  readonly now: number;
  /** When the call's time is up. */
  readonly deadlineAt: number;
  readonly random: () => number;
}

/**
 * Decides whether a retryable failure is retried, and after how long: the server's
 * `Retry-After` (at most 60 s) or full-jitter backoff. Returns `undefined` when the call should
 * fail with this attempt's error instead: the retries are used up, or waiting would reach the
 * deadline (it could only end in a timeout, and the real failure says more).
 */
export function decideRetry(question: RetryQuestion): number | undefined {
  if (question.attempt > question.maxRetries) return undefined;
  const delayMs =
    question.retryAfterMs === undefined
      ? backoffDelay(question.attempt, question.random)
      : Math.min(question.retryAfterMs, MAX_RETRY_AFTER_MS);
  if (question.now + delayMs >= question.deadlineAt) return undefined;
  return delayMs;
}

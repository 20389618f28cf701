/**
 * The longest wait a subscriber's `Retry-After` can ask of a delivery: 6 hours. A longer one is
 * cut to this; a shorter one than the retry schedule's next wait changes nothing.
 */
export const MAX_RETRY_AFTER_MS = 6 * 3_600_000;

const SECONDS = /^\s*(\d{1,10})\s*$/;

/**
 * @internal Reads a subscriber's `Retry-After` (RFC 9110: delay-seconds or an HTTP-date) as a
 * wait in milliseconds, at most {@link MAX_RETRY_AFTER_MS}; `undefined` when unreadable.
 */
export function retryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined || value.length === 0 || value.length > 64) return undefined;
  const seconds = SECONDS.exec(value);
  let wait: number | undefined;
  if (seconds !== null) {
    wait = Number(seconds[1]) * 1000;
  } else if (/[a-z]/i.test(value)) {
    const date = Date.parse(value);
    if (Number.isFinite(date)) wait = Math.max(0, date - nowMs);
  }
  return wait === undefined ? undefined : Math.min(wait, MAX_RETRY_AFTER_MS);
}

/** The longest wait the SDK accepts from a `Retry-After` header, in milliseconds. */
export const MAX_RETRY_AFTER_MS = 60_000;

const SECONDS = /^\s*(\d{1,10})(?:\.\d+)?\s*$/;
// An HTTP-date always names a month or a weekday, so a value with letters is tried as a date;
// `Date.parse('12')` would otherwise read a bare number as a year.
const HAS_LETTER = /[a-z]/i;

/**
 * Reads a `Retry-After` value (RFC 9110): delay-seconds or an HTTP-date. Returns the wait in
 * milliseconds (never negative: a date in the past is 0), or `undefined` when the header is
 * absent or unreadable. Never throws.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  nowMs: number,
): number | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > 64) return undefined;
  const seconds = SECONDS.exec(value);
  if (seconds !== null) return Number(seconds[1]) * 1000;
  if (!HAS_LETTER.test(value)) return undefined;
  const date = Date.parse(value);
  if (!Number.isFinite(date)) return undefined;
  return Math.max(0, date - nowMs);
}

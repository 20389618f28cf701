/** The first backoff step, in milliseconds. */
export const BACKOFF_BASE_MS = 500;
/** The largest backoff step, in milliseconds. */
export const BACKOFF_MAX_MS = 8_000;

/**
 * Exponential backoff with full jitter: a uniformly random wait between 0 and
 * `min(8 s, 0.5 s × 2^(retry - 1))`, so that many clients failing together do not retry together.
 *
 * @param retry - 1 for the first retry, 2 for the second, …
 * @param random - A source of numbers in `[0, 1)`.
 */
export function backoffDelay(retry: number, random: () => number): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, retry - 1));
  const draw = random();
  const fraction = Number.isFinite(draw) ? Math.min(Math.max(draw, 0), 1) : 0.5;
  return Math.floor(fraction * ceiling);
}

/** The statuses that are retried: the request may succeed if sent again. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

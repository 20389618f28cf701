import { FollowUpServerError } from '../errors.js';

/**
 * The default wait before each retry of an outbound delivery, in seconds: 30 s, 2 min, 10 min,
 * 30 min, 1 h, 2 h, 4 h, 8 h, 16 h, 24 h, 24 h. With the first attempt that is 12 attempts over
 * about 3.3 days, after which the delivery is dead.
 */
export const DEFAULT_RETRY_DELAYS_SECONDS: readonly number[] = Object.freeze([
  30, 120, 600, 1_800, 3_600, 7_200, 14_400, 28_800, 57_600, 86_400, 86_400,
]);

/** Most retries a schedule may hold. */
export const MAX_RETRY_DELAYS = 50;
/** Longest single wait, in seconds (30 days). */
export const MAX_RETRY_DELAY_SECONDS = 30 * 86_400;
/** Each wait is spread by up to this fraction either way, so retries of many deliveries part. */
export const RETRY_JITTER = 0.2;

function invalid(message: string): FollowUpServerError {
  return new FollowUpServerError({ code: 'invalid_retry_delays', message });
}

/**
 * Parses a retry schedule as given to `--delivery-retry-delays` or `DELIVERY_RETRY_DELAYS`:
 * waits in seconds, separated by commas (`1,2,4`; decimals allowed, `0.5`). Spaces around the
 * commas are fine. An empty list means "no retry": one attempt, then dead.
 *
 * @throws FollowUpServerError `invalid_retry_delays` for anything else, saying what.
 */
export function parseRetryDelays(text: string): number[] {
  if (typeof text !== 'string') throw invalid('The retry delays must be a string such as "1,2,4".');
  if (text.length > 2_000) throw invalid('The retry delays are longer than 2,000 characters.');
  if (text.trim() === '') return [];
  const parts = text.split(',');
  if (parts.length > MAX_RETRY_DELAYS) {
    throw invalid(`At most ${MAX_RETRY_DELAYS} retry delays may be given; got ${parts.length}.`);
  }
  return parts.map((part, index) => {
    const value = part.trim();
    if (!/^\d{1,9}(?:\.\d{1,3})?$/.test(value)) {
      throw invalid(
        `Retry delay #${index + 1} (${JSON.stringify(value.slice(0, 20))}) is not a number of seconds such as 30 or 0.5.`,
      );
    }
    const seconds = Number(value);
    if (seconds <= 0 || seconds > MAX_RETRY_DELAY_SECONDS) {
      throw invalid(
        `Retry delay #${index + 1} must be more than 0 and at most ${MAX_RETRY_DELAY_SECONDS} seconds (30 days).`,
      );
    }
    return seconds;
  });
}

/**
 * When the attempt after `attemptsMade` attempts is due, in milliseconds from now, or
 * `undefined` when the schedule is spent (the delivery is dead). The wait is the schedule's,
 * spread by up to ±{@link RETRY_JITTER}; `random` is injected for tests (`Math.random` shape).
 */
export function retryDelayMs(
  attemptsMade: number,
  schedule: readonly number[],
  random: () => number,
): number | undefined {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) {
    throw new RangeError('attemptsMade counts the attempts already made: 1 or more.');
  }
  const seconds = schedule[attemptsMade - 1];
  if (seconds === undefined) return undefined;
  const spread = 1 + RETRY_JITTER * (2 * random() - 1);
  return Math.max(1, Math.round(seconds * 1000 * spread));
}

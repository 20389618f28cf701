import { DURATION_UNIT_SECONDS } from '../duration.js';
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

// One wait: a number (up to three decimals) and a unit of duration.ts, or none for seconds.
const retryDelayPattern = /^(\d{1,9}(?:\.\d{1,3})?)(s|m|h|d)?$/;

/**
 * Parses a retry schedule as given to `--delivery-retry-delays` or `DELIVERY_RETRY_DELAYS`:
 * waits separated by commas, each a duration such as `1s`, `5m`, `2h` or `1d` (`s`, `m`, `h`,
 * `d`, as `--auto-disable-after` takes them) or a bare number of seconds (`30`); up to three
 * decimals (`0.5`, `1.5m`). Spaces around the commas are fine. Each wait is more than 0 and at
 * most 30 days, at most {@link MAX_RETRY_DELAYS} of them. An empty list means "no retry": one
 * attempt, then dead.
 *
 * @returns The waits in seconds.
 * @throws FollowUpServerError `invalid_retry_delays` for anything else, saying what.
 * @example
 * ```ts
 * parseRetryDelays('1s,5s,30s'); // [1, 5, 30]
 * parseRetryDelays('30,2m,1h'); // [30, 120, 3600]
 * ```
 */
export function parseRetryDelays(text: string): number[] {
  if (typeof text !== 'string')
    throw invalid('The retry delays must be a string such as "1s,5s,30s".');
  if (text.length > 2_000) throw invalid('The retry delays are longer than 2,000 characters.');
  if (text.trim() === '') return [];
  const parts = text.split(',');
  if (parts.length > MAX_RETRY_DELAYS) {
    throw invalid(`At most ${MAX_RETRY_DELAYS} retry delays may be given; got ${parts.length}.`);
  }
  return parts.map((part, index) => {
    const value = part.trim();
    const match = retryDelayPattern.exec(value);
    if (!match) {
      throw invalid(
        `Retry delay #${index + 1} (${JSON.stringify(value.slice(0, 20))}) is not a duration such as 30s, 5m, 2h or 1d, nor a number of seconds such as 0.5.`,
      );
    }
    const unit = DURATION_UNIT_SECONDS[(match[2] ?? 's') as keyof typeof DURATION_UNIT_SECONDS];
    // To the millisecond: 1.001h is 3603.6 s, not 3603.5999….
    const seconds = Math.round(Number(match[1]) * unit * 1000) / 1000;
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

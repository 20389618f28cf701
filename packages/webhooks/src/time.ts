import { verificationError } from './errors.js';

/** Default tolerance of the timestamp check, in seconds, in both directions. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

// 10^11 seconds is the year 5138; a larger "seconds" value is almost surely milliseconds.
const LARGEST_SECONDS = 1e11;

/** A point in time: a `Date`, or whole seconds since the Unix epoch. */
export type Instant = Date | number;

/** Converts a `Date` or a number of Unix seconds to whole Unix seconds, refusing nonsense. */
export function toUnixSeconds(value: Instant, what: string): number {
  if (value instanceof Date) {
    const ms = value.getTime();
    if (!Number.isFinite(ms) || ms < 0) {
      throw new RangeError(`${what} must be a valid date after 1970; got an invalid Date.`);
    }
    return Math.floor(ms / 1000);
  }
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new RangeError(`${what} must be a Date or a non-negative number of Unix seconds.`);
  }
  if (value >= LARGEST_SECONDS) {
    throw new RangeError(
      `${what} is in seconds since the Unix epoch; ${value} looks like milliseconds (divide by 1000).`,
    );
  }
  return Math.floor(value);
}

/** Options shared by every verification that checks a timestamp. */
export interface TimestampOptions {
  /**
   * How far the signed timestamp may be from `now`, in seconds, in either direction.
   * Defaults to 300. `0` means the same second, never "no check"; to skip the check, set
   * {@link TimestampOptions.ignoreTimestamp}.
   */
  tolerance?: number;
  /**
   * Skips the timestamp check (the timestamp is still required and still signed). Only for
   * replaying stored deliveries on purpose; a live endpoint should keep the check.
   */
  ignoreTimestamp?: boolean;
  /** The current time, for tests and for replays: a `Date` or Unix seconds. Defaults to the clock. */
  now?: Instant;
}

/** Throws `timestamp_too_old` or `timestamp_in_future` when `timestamp` is out of tolerance. */
export function checkTimestamp(timestamp: number, options: TimestampOptions): void {
  if (options.ignoreTimestamp === true) return;
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE_SECONDS;
  if (typeof tolerance !== 'number' || !Number.isFinite(tolerance) || tolerance < 0) {
    throw new RangeError(
      'tolerance must be a finite, non-negative number of seconds; to skip the timestamp check, set ignoreTimestamp: true.',
    );
  }
  const now =
    options.now === undefined ? Math.floor(Date.now() / 1000) : toUnixSeconds(options.now, 'now');
  if (now - timestamp > tolerance) {
    throw verificationError(
      'timestamp_too_old',
      `The signature timestamp is ${now - timestamp} s old, more than the ${tolerance} s tolerance.`,
    );
  }
  if (timestamp - now > tolerance) {
    throw verificationError(
      'timestamp_in_future',
      `The signature timestamp is ${timestamp - now} s in the future, more than the ${tolerance} s tolerance.`,
    );
  }
}

/**
 * For the fast paths: the tolerance that {@link checkTimestamp} would use, -1 when it would skip
 * the check (`ignoreTimestamp: true`), or `NaN` when `tolerance` is anything but absent or a
 * finite, non-negative number. Reads the options once and never throws, so that the caller can
 * read them before it touches shared scratch space, and leave anything unusual to the general
 * path.
 */
export function plainTolerance(options: TimestampOptions): number {
  if (options.ignoreTimestamp === true) return -1;
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE_SECONDS;
  return typeof tolerance === 'number' && Number.isFinite(tolerance) && tolerance >= 0
    ? tolerance
    : Number.NaN;
}

/**
 * For the fast paths: the `now` that {@link checkTimestamp} would use, in whole seconds, or
 * `NaN` when `now` is anything but absent or plain Unix seconds (a `Date` included). Never
 * throws.
 */
export function plainNow(options: TimestampOptions): number {
  const now = options.now;
  if (now === undefined) return Math.floor(Date.now() / 1000);
  return typeof now === 'number' && now >= 0 && now < LARGEST_SECONDS
    ? Math.floor(now)
    : Number.NaN;
}

/**
 * For the fast paths: whether {@link checkTimestamp} would let `timestamp` through, given what
 * {@link plainTolerance} and {@link plainNow} returned (`now` is not read when the tolerance is
 * -1).
 */
export function withinPlainTolerance(timestamp: number, tolerance: number, now: number): boolean {
  return tolerance === -1 || !(now - timestamp > tolerance || timestamp - now > tolerance);
}

/**
 * The source of the current time. Inject one into `buildServer` and the stores so that tests
 * move time forward (token TTLs, idempotency windows) instead of sleeping.
 *
 * @example
 * ```ts
 * let now = Date.parse('2026-01-01T00:00:00Z');
 * const clock: Clock = { now: () => now };
 * now += 3_600_000; // an hour later
 * ```
 */
export interface Clock {
  /** Milliseconds since the Unix epoch, like `Date.now()`. */
  now(): number;
}

/** The real clock, `Date.now()`. */
export const systemClock: Clock = { now: () => Date.now() };

import type { Clock } from '../../src/clock.js';

/** A clock that only moves when told to. */
export interface ManualClock extends Clock {
  /** Moves the clock forward by `milliseconds`. */
  advance(milliseconds: number): void;
  /** Sets the clock to an instant. */
  set(instant: number | string): void;
}

export function manualClock(start: number | string = '2026-03-01T09:00:00.000Z'): ManualClock {
  let now = typeof start === 'string' ? Date.parse(start) : start;
  return {
    now: () => now,
    advance: (milliseconds) => {
      now += milliseconds;
    },
    set: (instant) => {
      now = typeof instant === 'string' ? Date.parse(instant) : instant;
    },
  };
}

import { type Clock, FollowUp, type FollowUpOptions } from '../src/index.js';
import type { Fixture } from './fixture-server.js';
import { TOKEN } from './fixture-server.js';

/** A sleep that returns at once and records the waits asked for. */
export function instantSleep(): {
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  waits: number[];
} {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (ms) => {
      waits.push(ms);
    },
  };
}

/** A client of the fixture with instant waits (no real sleeping in tests). */
export function clientFor(
  fixture: Fixture,
  options: Partial<FollowUpOptions> = {},
): { client: FollowUp; waits: number[] } {
  const { sleep, waits } = instantSleep();
  const client = new FollowUp({
    token: TOKEN,
    baseUrl: fixture.baseUrl,
    sleep,
    random: () => 0.5,
    ...options,
  });
  return { client, waits };
}

/** Resolves once the fixture has seen `count` requests to `path`. */
export async function seen(fixture: Fixture, path: string, count = 1): Promise<void> {
  while (fixture.count(path) < count) await new Promise((resolve) => setTimeout(resolve, 2));
}

/** A clock whose time moves only when a test says so. */
export interface ManualClock extends Clock {
  /** Moves the time forward by `ms` and runs, in order, every timer that falls due. */
  advance(ms: number): void;
  /** The delays of the timers still waiting, in the order they were set. */
  pendingTimers(): number[];
}

/** A {@link ManualClock} starting at `start` (a whole second, so HTTP dates are exact). */
export function manualClock(start = Date.UTC(2026, 0, 1)): ManualClock {
  let time = start;
  let sequence = 0;
  const timers = new Map<number, { at: number; ms: number; callback: () => void }>();
  return {
    now: () => time,
    setTimer(callback, ms) {
      const id = sequence++;
      timers.set(id, { at: time + ms, ms, callback });
      return () => {
        timers.delete(id);
      };
    },
    advance(ms) {
      time += ms;
      for (;;) {
        let next: [number, { at: number; callback: () => void }] | undefined;
        for (const entry of timers) {
          if (entry[1].at <= time && (next === undefined || entry[1].at < next[1].at)) {
            next = entry;
          }
        }
        if (next === undefined) return;
        timers.delete(next[0]);
        next[1].callback();
      }
    },
    pendingTimers: () => [...timers.values()].map((timer) => timer.ms),
  };
}

/** Resolves once `condition()` holds, checking after each turn of the event loop. */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

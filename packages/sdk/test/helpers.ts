import { FollowUp, type FollowUpOptions } from '../src/index.js';
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

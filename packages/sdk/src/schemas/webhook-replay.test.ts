import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_KINDS } from '../wire/event-kinds.js';
import { REPLAY_STATES } from '../wire/limits.js';
import { replayInputSchema } from './webhook-replay.js';

// Instants between 2000 and 2100, to the millisecond, as ISO 8601 with Z.
const instant = fc
  .integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) })
  .map((ms) => new Date(ms).toISOString());

function failingPaths(input: unknown): string[] {
  const result = replayInputSchema.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'));
}

describe("a replay's input", () => {
  it('accepts a window whose until is after since, and refuses one that is not, naming until', () => {
    fc.assert(
      fc.property(instant, instant, (since, until) => {
        const paths = failingPaths({ since, until });
        if (Date.parse(until) > Date.parse(since)) expect(paths).toEqual([]);
        else expect(paths).toEqual(['until']);
      }),
    );
  });

  it('accepts any non-empty choice of the states and kinds, and names the first one outside', () => {
    fc.assert(
      fc.property(
        instant,
        fc.uniqueArray(fc.constantFrom(...REPLAY_STATES), { minLength: 1 }),
        fc.uniqueArray(fc.constantFrom(...WEBHOOK_EVENT_KINDS), { minLength: 1 }),
        (since, states, kinds) => {
          expect(failingPaths({ since, states, kinds })).toEqual([]);
        },
      ),
    );
    fc.assert(
      fc.property(
        instant,
        fc.string().filter((text) => !(REPLAY_STATES as readonly string[]).includes(text)),
        (since, state) => {
          expect(failingPaths({ since, states: ['dead', state] })).toEqual(['states.1']);
        },
      ),
    );
  });

  it('refuses a since that is not an ISO 8601 instant, and any unknown field', () => {
    fc.assert(
      fc.property(
        fc.string().filter((text) => Number.isNaN(Date.parse(text)) || !text.includes('T')),
        (since) => {
          expect(failingPaths({ since })).toContain('since');
        },
      ),
    );
    expect(failingPaths({})).toEqual(['since']);
    expect(failingPaths({ since: '2026-03-01T09:00:00+02:00' })).toEqual([]);
    expect(failingPaths({ since: '2026-03-01T09:00:00Z', window: 'all' })).toEqual(['']);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FollowUpServerError } from '../errors.js';
import {
  DEFAULT_RETRY_DELAYS_SECONDS,
  MAX_RETRY_DELAYS,
  parseRetryDelays,
  RETRY_JITTER,
  retryDelayMs,
} from './retry-schedule.js';

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (FollowUpServerError.isInstance(error)) return error.code;
    throw error;
  }
  return undefined;
}

describe('parseRetryDelays', () => {
  it('reads seconds separated by commas, with spaces and decimals', () => {
    expect(parseRetryDelays('1,2,4')).toEqual([1, 2, 4]);
    expect(parseRetryDelays(' 0.5 , 30,3600 ')).toEqual([0.5, 30, 3600]);
    expect(parseRetryDelays('')).toEqual([]);
  });

  it('reads durations with a unit, as --auto-disable-after takes them, beside bare seconds', () => {
    expect(parseRetryDelays('1s,5s,30s')).toEqual([1, 5, 30]);
    expect(parseRetryDelays('30, 2m ,1h,1d')).toEqual([30, 120, 3_600, 86_400]);
    expect(parseRetryDelays('0.5s,1.5m,1.001h')).toEqual([0.5, 90, 3_603.6]);
    expect(parseRetryDelays('30d')).toEqual([30 * 86_400]);
  });

  it.each([
    ['a word', 'soon'],
    ['a negative wait', '1,-2'],
    ['zero', '0'],
    ['an empty entry', '1,,2'],
    ['a unit it does not know', '5w'],
    ['milliseconds', '500ms'],
    ['an upper-case unit', '5S'],
    ['a space before the unit', '5 s'],
    ['a unit without a number', 's'],
    ['more than 30 days with a unit', '31d'],
    ['zero with a unit', '0s'],
    ['an exponent', '1e3'],
    ['more than 30 days', String(31 * 86_400)],
    ['too many entries', Array.from({ length: MAX_RETRY_DELAYS + 1 }, () => '1').join(',')],
  ])('refuses %s with invalid_retry_delays', (_name, text) => {
    expect(codeOf(() => parseRetryDelays(text))).toBe('invalid_retry_delays');
  });

  it('reads any list of durations as their seconds, whatever the units and spaces', () => {
    const units = { s: 1, m: 60, h: 3_600, d: 86_400 } as const;
    const wait = fc
      .record({
        // Thousandths, so that decimals are written as a user would (1.5, 0.25).
        thousandths: fc.integer({ min: 1, max: 30_000_000 }),
        unit: fc.constantFrom<keyof typeof units | ''>('', 's', 'm', 'h', 'd'),
        before: fc.constantFrom('', ' ', '  '),
        after: fc.constantFrom('', ' '),
      })
      .filter(({ thousandths, unit }) => (thousandths / 1000) * units[unit || 's'] <= 30 * 86_400);
    fc.assert(
      fc.property(fc.array(wait, { minLength: 1, maxLength: MAX_RETRY_DELAYS }), (waits) => {
        const text = waits
          .map(
            ({ thousandths, unit, before, after }) =>
              `${before}${thousandths / 1000}${unit}${after}`,
          )
          .join(',');
        const expected = waits.map(
          ({ thousandths, unit }) => Math.round(thousandths * units[unit || 's']) / 1000,
        );
        expect(parseRetryDelays(text)).toEqual(expected);
      }),
    );
  });

  it('round-trips any valid schedule and throws nothing but its own error on junk', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 86_400 }), { maxLength: MAX_RETRY_DELAYS }),
        (delays) => {
          expect(parseRetryDelays(delays.join(','))).toEqual(delays);
        },
      ),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        try {
          const delays = parseRetryDelays(text);
          for (const delay of delays) expect(delay).toBeGreaterThan(0);
        } catch (error) {
          expect(FollowUpServerError.isInstance(error)).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('retryDelayMs', () => {
  it('follows the schedule, spread by at most ±20%, then stops', () => {
    const schedule = [1, 2, 4];
    expect(retryDelayMs(1, schedule, () => 0.5)).toBe(1000);
    expect(retryDelayMs(2, schedule, () => 0)).toBe(2000 * (1 - RETRY_JITTER));
    expect(retryDelayMs(3, schedule, () => 0.999_999)).toBeCloseTo(4000 * (1 + RETRY_JITTER), -1);
    expect(retryDelayMs(4, schedule, () => 0.5)).toBeUndefined();
    expect(retryDelayMs(1, [], () => 0.5)).toBeUndefined();
  });

  it('keeps every wait within the jitter bounds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, random) => {
          const delay = retryDelayMs(attempt, DEFAULT_RETRY_DELAYS_SECONDS, () => random);
          const base = (DEFAULT_RETRY_DELAYS_SECONDS[attempt - 1] ?? Number.NaN) * 1000;
          if (attempt > DEFAULT_RETRY_DELAYS_SECONDS.length) expect(delay).toBeUndefined();
          else {
            expect(delay).toBeGreaterThanOrEqual(Math.floor(base * (1 - RETRY_JITTER)));
            expect(delay).toBeLessThanOrEqual(Math.ceil(base * (1 + RETRY_JITTER)));
          }
        },
      ),
    );
  });

  it('spreads the default schedule over about three days', () => {
    const total = DEFAULT_RETRY_DELAYS_SECONDS.reduce((sum, seconds) => sum + seconds, 0);
    expect(total / 86_400).toBeGreaterThan(3);
    expect(total / 86_400).toBeLessThan(3.5);
  });

  it('refuses a nonsensical attempt count', () => {
    expect(() => retryDelayMs(0, [1], Math.random)).toThrow(RangeError);
    expect(() => retryDelayMs(1.5, [1], Math.random)).toThrow(RangeError);
  });
});

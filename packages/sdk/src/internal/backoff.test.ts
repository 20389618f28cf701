import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BACKOFF_BASE_MS, BACKOFF_MAX_MS, backoffDelay } from './backoff.js';

describe('backoffDelay (full jitter)', () => {
  it('stays within 0 and min(max, base × 2^(retry-1))', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (retry, draw) => {
          const delay = backoffDelay(retry, () => draw);
          const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (retry - 1));
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThanOrEqual(ceiling);
          expect(delay).toBe(Math.floor(draw * ceiling));
        },
      ),
    );
  });

  it('grows exponentially up to the cap', () => {
    const top = () => 0.999_999;
    expect([1, 2, 3, 4, 5, 6].map((retry) => backoffDelay(retry, top))).toEqual([
      499, 999, 1999, 3999, 7999, 7999,
    ]);
  });

  it('survives a random source that returns nonsense', () => {
    for (const draw of [Number.NaN, -1, 2, Number.POSITIVE_INFINITY]) {
      const delay = backoffDelay(2, () => draw);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(1000);
    }
  });
});

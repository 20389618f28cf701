import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS, retryAfterMs } from './retry-after.js';

const NOW = Date.parse('2026-03-01T09:00:00Z');

describe('retryAfterMs', () => {
  it('reads delay-seconds and HTTP-dates, capped', () => {
    expect(retryAfterMs('120', NOW)).toBe(120_000);
    expect(retryAfterMs(' 0 ', NOW)).toBe(0);
    expect(retryAfterMs('Sun, 01 Mar 2026 09:05:00 GMT', NOW)).toBe(300_000);
    expect(retryAfterMs('Sun, 01 Mar 2026 08:00:00 GMT', NOW)).toBe(0);
    expect(retryAfterMs('999999', NOW)).toBe(MAX_RETRY_AFTER_MS);
  });

  it.each([undefined, '', '-1', '1.5', '12abc', 'soon', 'x'.repeat(65)])(
    'gives up on %j',
    (value) => {
      expect(retryAfterMs(value, NOW)).toBeUndefined();
    },
  );

  it('never throws and never answers outside 0 to the cap', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (value) => {
        const wait = retryAfterMs(value, NOW);
        if (wait !== undefined) {
          expect(wait).toBeGreaterThanOrEqual(0);
          expect(wait).toBeLessThanOrEqual(MAX_RETRY_AFTER_MS);
        }
      }),
    );
  });
});

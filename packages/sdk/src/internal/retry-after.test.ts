import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './retry-after.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

describe('parseRetryAfter', () => {
  it('reads delay-seconds as milliseconds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9_999_999_999 }), (seconds) => {
        expect(parseRetryAfter(String(seconds), NOW)).toBe(seconds * 1000);
        expect(parseRetryAfter(` ${seconds} `, NOW)).toBe(seconds * 1000);
      }),
    );
  });

  it('reads an HTTP-date as the time left until it, and a past date as 0', () => {
    fc.assert(
      fc.property(fc.integer({ min: -86_400, max: 86_400 }), (offsetSeconds) => {
        const date = new Date(NOW + offsetSeconds * 1000).toUTCString();
        expect(parseRetryAfter(date, NOW)).toBe(Math.max(0, offsetSeconds * 1000));
      }),
    );
  });

  it('never throws and never returns a negative or non-finite wait', () => {
    fc.assert(
      fc.property(fc.option(fc.string({ maxLength: 80 }), { nil: undefined }), (value) => {
        const parsed = parseRetryAfter(value, NOW);
        if (parsed !== undefined) {
          expect(Number.isFinite(parsed)).toBe(true);
          expect(parsed).toBeGreaterThanOrEqual(0);
        }
      }),
    );
  });

  it('ignores what is neither seconds nor a date', () => {
    for (const value of [
      '',
      '-5',
      'soon',
      '1e3',
      '0x10',
      '12abc',
      null,
      undefined,
      'x'.repeat(100),
    ]) {
      expect(parseRetryAfter(value, NOW)).toBeUndefined();
    }
  });
});

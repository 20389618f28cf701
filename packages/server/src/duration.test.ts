import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './duration.js';

describe('parseDuration', () => {
  it('reads seconds, minutes, hours and days', () => {
    expect(parseDuration('90s')).toBe(90);
    expect(parseDuration('30m')).toBe(1_800);
    expect(parseDuration('24h')).toBe(86_400);
    expect(parseDuration('7d')).toBe(604_800);
    expect(parseDuration('0s')).toBe(0);
  });

  it('refuses anything that is not digits and one unit', () => {
    for (const text of [
      '',
      '24',
      'h',
      '24H',
      '1.5h',
      '-1h',
      '+1h',
      ' 1h',
      '1h ',
      '1 h',
      '01h',
      '1e3s',
      '1h30m',
      '1w',
      '0x10s',
      '１h',
      '1000000000s',
    ]) {
      expect(parseDuration(text), text).toBeUndefined();
    }
  });

  it('refuses a duration over the maximum', () => {
    expect(parseDuration('30d', { max: 30 * 86_400 })).toBe(30 * 86_400);
    expect(parseDuration('31d', { max: 30 * 86_400 })).toBeUndefined();
  });

  it('reads back what formatDuration writes, for every whole number of seconds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999_999 }), (seconds) => {
        expect(parseDuration(formatDuration(seconds))).toBe(seconds);
      }),
    );
  });

  it('answers digits times their unit, or undefined, for any string', () => {
    const unitSeconds: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };
    const alphabet = fc.constantFrom(...'0123456789smhdSMHD .-+e_x\u0660'.split(''));
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: alphabet, maxLength: 12 })), (text) => {
        const seconds = parseDuration(text);
        if (seconds === undefined) return;
        expect(text).toMatch(/^(0|[1-9][0-9]*)[smhd]$/);
        expect(seconds).toBe(Number(text.slice(0, -1)) * (unitSeconds[text.slice(-1)] ?? NaN));
      }),
    );
  });
});

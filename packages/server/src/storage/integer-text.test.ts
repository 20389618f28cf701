import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isBigintText, isXid8Text } from './integer-text.js';

const BIGINT_MAX = 2n ** 63n - 1n;
const XID8_MAX = 2n ** 64n - 1n;

describe('integer text of cursors', () => {
  it('accepts every number of the range, written in decimal', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: BIGINT_MAX }), (value) => {
        expect(isBigintText(String(value))).toBe(true);
      }),
    );
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: XID8_MAX }), (value) => {
        expect(isXid8Text(String(value))).toBe(true);
      }),
    );
    expect(isBigintText('9223372036854775807')).toBe(true);
    expect(isXid8Text('18446744073709551615')).toBe(true);
  });

  it('refuses every number past the range, however many digits it has', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: BIGINT_MAX + 1n, max: 10n ** 40n }), (value) => {
        expect(isBigintText(String(value))).toBe(false);
      }),
    );
    fc.assert(
      fc.property(fc.bigInt({ min: XID8_MAX + 1n, max: 10n ** 40n }), (value) => {
        expect(isXid8Text(String(value))).toBe(false);
      }),
    );
    expect(isBigintText('9223372036854775808')).toBe(false);
    expect(isBigintText('9999999999999999999')).toBe(false);
    expect(isXid8Text('18446744073709551616')).toBe(false);
  });

  it('accepts a string exactly when it is the canonical decimal of a number in range', () => {
    const digitsOrNot = fc.oneof(
      fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength: 22 }),
      fc.string({ unit: fc.constantFrom(...'0123456789+- .e_x'), maxLength: 22 }),
      fc.string({ unit: 'binary', maxLength: 24 }),
    );
    fc.assert(
      fc.property(digitsOrNot, (text) => {
        const canonical = /^[0-9]+$/.test(text) && String(BigInt(text)) === text;
        expect(isBigintText(text)).toBe(canonical && BigInt(text) <= BIGINT_MAX);
        expect(isXid8Text(text)).toBe(canonical && BigInt(text) <= XID8_MAX);
      }),
      { numRuns: 2000 },
    );
    for (const text of ['', '-1', '+1', '01', ' 1', '1 ', '1e3', '１']) {
      expect(isBigintText(text), text).toBe(false);
    }
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { secretsEqual } from './secrets-equal.js';

describe('secretsEqual', () => {
  it('is true for equal strings and equal bytes, and across the two forms', () => {
    expect(secretsEqual('s3cret', 's3cret')).toBe(true);
    expect(secretsEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(true);
    expect(secretsEqual('café', new TextEncoder().encode('café'))).toBe(true);
  });

  it('is false for values that differ in content or in length', () => {
    expect(secretsEqual('s3cret', 's3creT')).toBe(false);
    expect(secretsEqual('s3cret', 's3cre')).toBe(false);
    expect(secretsEqual('s3cre', 's3cret')).toBe(false);
    expect(secretsEqual('', 'x')).toBe(false);
    // A shorter value padded with zero bytes must not pass as the longer one.
    expect(secretsEqual(new Uint8Array([1, 0]), new Uint8Array([1]))).toBe(false);
  });

  it('never lets a missing or non-string value pass, and never throws', () => {
    for (const junk of [undefined, null, 0, 1, {}, [], ['s3cret'], Symbol('x'), () => 's3cret']) {
      expect(secretsEqual(junk, 's3cret')).toBe(false);
      expect(secretsEqual('s3cret', junk)).toBe(false);
      expect(secretsEqual(junk, junk)).toBe(false);
    }
  });

  it('agrees with === on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        expect(secretsEqual(a, b)).toBe(a === b);
        expect(secretsEqual(a, a)).toBe(true);
      }),
    );
  });

  it('agrees with byte equality on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array(), fc.uint8Array(), (a, b) => {
        expect(secretsEqual(a, b)).toBe(Buffer.from(a).equals(Buffer.from(b)));
      }),
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exceedsJsonNesting } from './json-nesting.js';

/** The nesting of a parsed JSON value, counted on the value itself. */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + children.reduce<number>((deepest, child) => Math.max(deepest, depthOf(child)), 0);
}

// Strings (values and keys) made of what could fool a scanner: brackets, braces, quotes,
// backslashes (JSON.stringify escapes the last two), control characters and non-ASCII text.
const trickyString = fc.string({
  unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', '\\"', 'a', ' ', '\n', '\u0000', 'é', '😀'),
  maxLength: 12,
});

const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    trickyString,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(trickyString, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** A value wrapped in `levels` arrays or objects, mixed, for depths past what letrec makes. */
const deepJsonValue = fc
  .tuple(jsonValue, fc.array(fc.oneof(fc.constant('array'), trickyString), { maxLength: 80 }))
  .map(([inner, wrappers]) =>
    wrappers.reduce<unknown>(
      (value, wrapper) => (wrapper === 'array' ? [value] : { [wrapper]: value }),
      inner,
    ),
  );

describe('exceedsJsonNesting', () => {
  it('says whether a JSON text is nested deeper than the limit, exactly', () => {
    fc.assert(
      fc.property(
        fc.oneof(jsonValue, deepJsonValue),
        fc.constantFrom(undefined, 1, '\t'),
        fc.nat({ max: 90 }),
        (value, indent, limit) => {
          const text = JSON.stringify(value, null, indent);
          expect(exceedsJsonNesting(text, limit)).toBe(depthOf(value) > limit);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('is exact at the limit', () => {
    fc.assert(
      fc.property(fc.oneof(jsonValue, deepJsonValue), (value) => {
        const text = JSON.stringify(value);
        const depth = depthOf(value);
        expect(exceedsJsonNesting(text, depth)).toBe(false);
        if (depth > 0) expect(exceedsJsonNesting(text, depth - 1)).toBe(true);
      }),
    );
  });

  it('never throws on any text, JSON or not', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', 'x') }),
        fc.nat({ max: 20 }),
        (text, limit) => {
          expect(typeof exceedsJsonNesting(text, limit)).toBe('boolean');
        },
      ),
    );
  });

  it('counts neither brackets in strings nor escaped quotes, and reads deep text in one pass', () => {
    expect(exceedsJsonNesting(`{"a":"${'['.repeat(1000)}"}`, 1)).toBe(false);
    expect(exceedsJsonNesting(String.raw`["\"[[[", "\\", [[1]]]`, 2)).toBe(true);
    expect(exceedsJsonNesting(String.raw`["\"[[[", "\\", [[1]]]`, 3)).toBe(false);
    expect(exceedsJsonNesting(`${'['.repeat(200_000)}${']'.repeat(200_000)}`, 64)).toBe(true);
    expect(exceedsJsonNesting('"unterminated [[[[[', 0)).toBe(false);
  });
});

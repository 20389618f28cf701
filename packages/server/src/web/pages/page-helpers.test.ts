import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { textField, when, wholeTextField } from './page-helpers.js';

describe('page helpers', () => {
  it('reads a text field as a trimmed string of at most max characters, whatever the input', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.array(fc.string()), fc.integer())),
          fc.constant(null),
          fc.string(),
        ),
        fc.string(),
        fc.integer({ min: 0, max: 300 }),
        (source, name, max) => {
          const text = textField(source, name, max);
          expect(typeof text).toBe('string');
          expect(text.length).toBeLessThanOrEqual(max);
          expect(text).toBe(text.trim());
        },
      ),
    );
    expect(textField({ name: ['a', 'b'] }, 'name')).toBe('a');
    expect(textField({ name: '  x  ' }, 'name')).toBe('x');
    expect(textField({ toString: 'x' }, 'constructor')).toBe('');
  });

  it('reads a whole text field, trimmed and never cut, whatever the input', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.array(fc.string()), fc.integer())),
          fc.constant(null),
          fc.string(),
        ),
        fc.string(),
        (source, name) => {
          const text = wholeTextField(source, name);
          expect(text).toBe(text.trim());
          const value =
            typeof source === 'object' && source !== null && Object.hasOwn(source, name)
              ? (source as Record<string, unknown>)[name]
              : undefined;
          if (typeof value === 'string') expect(text).toBe(value.trim());
        },
      ),
    );
    fc.assert(
      fc.property(fc.string({ minLength: 2_049, maxLength: 10_000 }), (long) => {
        expect(wholeTextField({ url: long }, 'url')).toBe(long.trim());
      }),
      { numRuns: 50 },
    );
    expect(wholeTextField({ url: [' a ', 'b'] }, 'url')).toBe('a');
    expect(wholeTextField({}, 'constructor')).toBe('');
  });

  it('writes times as people read them', () => {
    expect(when('2026-03-01T09:00:05.123Z')).toBe('2026-03-01 09:00:05 UTC');
    expect(when(null)).toBe('—');
  });
});

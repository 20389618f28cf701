import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkTokenLabel } from './token-label.js';

describe('token label', () => {
  it('accepts a label exactly when it is 1 to 100 printable characters, for any string', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' })),
        (label) => {
          let accepted: string | undefined;
          try {
            accepted = checkTokenLabel(label);
          } catch (error) {
            expect((error as { code?: string }).code).toBe('invalid_label');
          }
          if (accepted === undefined) return;
          expect(accepted).toBe(label);
          expect([...label].length).toBeLessThanOrEqual(100);
          expect(label.trim()).not.toBe('');
          expect(label.isWellFormed()).toBe(true);
          expect(/[\p{Cc}\u2028\u2029]/u.test(label)).toBe(false);
        },
      ),
    );
  });
});

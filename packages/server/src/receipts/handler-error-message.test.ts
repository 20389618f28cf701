import { isStorableText } from '@followup/sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { handlerErrorMessage, MAX_HANDLER_ERROR_LENGTH } from './handler-error-message.js';

describe('handlerErrorMessage', () => {
  it('keeps a plain message as it was written', () => {
    expect(handlerErrorMessage(new Error('downstream EHR unavailable'))).toBe(
      'downstream EHR unavailable',
    );
    expect(handlerErrorMessage('a thrown string')).toBe('a thrown string');
    expect(handlerErrorMessage(new Error('café 😀'))).toBe('café 😀');
  });

  it('puts the message on one line, without NUL, control characters or unpaired surrogates', () => {
    expect(handlerErrorMessage(new Error('line\r\nbreak\u0000nul\u001b[31m\u0085'))).toBe(
      'line  break nul [31m ',
    );
    expect(handlerErrorMessage(new Error('a\uD800b\uDC00c'))).toBe('a\uFFFDb\uFFFDc');
  });

  it('cuts a long message, never through a surrogate pair', () => {
    const long = handlerErrorMessage(new Error('x'.repeat(1_000_000)));
    expect(long).toHaveLength(MAX_HANDLER_ERROR_LENGTH);
    expect(long.endsWith('…')).toBe(true);
    const emoji = handlerErrorMessage(new Error(`${'x'.repeat(MAX_HANDLER_ERROR_LENGTH - 2)}😀😀`));
    expect(isStorableText(emoji)).toBe(true);
    expect(emoji).toBe(`${'x'.repeat(MAX_HANDLER_ERROR_LENGTH - 2)}…`);
  });

  it('answers a string whatever was thrown', () => {
    const hostile = {
      toString() {
        throw new Error('no');
      },
    };
    const getter = Object.defineProperty(new Error(), 'message', {
      get() {
        throw new Error('no');
      },
    });
    for (const thrown of [Object.create(null), hostile, getter, '']) {
      expect(handlerErrorMessage(thrown)).toBe('The handler failed without a readable message.');
    }
    expect(handlerErrorMessage(42)).toBe('42');
    expect(handlerErrorMessage(undefined)).toBe('undefined');
    expect(handlerErrorMessage(Symbol('s'))).toBe('Symbol(s)');
  });

  it('answers storable text of bounded length for any message', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 1200 }), (message) => {
        const stored = handlerErrorMessage(new Error(message));
        expect(isStorableText(stored)).toBe(true);
        expect(stored).not.toMatch(/\p{Cc}/u);
        expect(stored.length).toBeLessThanOrEqual(MAX_HANDLER_ERROR_LENGTH);
        if (message.length <= MAX_HANDLER_ERROR_LENGTH && isStorableText(message)) {
          expect(stored.length === message.length || stored.startsWith('The handler')).toBe(true);
        }
      }),
      { seed: 20261124, numRuns: 200 },
    );
  });
});

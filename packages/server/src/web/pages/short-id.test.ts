import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SHORT_ID_LIMIT, shortId } from './short-id.js';

describe('shortId', () => {
  it('keeps the prefix, four characters, an ellipsis and the last three', () => {
    expect(shortId('usr_01M8ZKQ5C7V4XW2N9J6B8T03FQ')).toBe('usr_01M8…3FQ');
    expect(shortId('dlv_01J9Z3B4C5D6E7F8G9H0J1K2M3')).toBe('dlv_01J9…2M3');
    expect(shortId('we_01J9Z3B4C5D6E7F8G9H0J1K2M3')).toBe('we_01J9…2M3');
  });

  it('answers a short id whole', () => {
    expect(shortId('we_xss')).toBe('we_xss');
    expect(shortId('dlv_missing')).toBe('dlv_missing');
    expect(shortId('')).toBe('');
  });

  it('shortens an id without an early prefix from its start', () => {
    expect(shortId('0123456789abcdefghij')).toBe('0123…hij');
    expect(shortId('averyverylongprefix_0123456789')).toBe('aver…789');
  });

  it('is shorter than any id it shortens, and keeps both its ends', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-ascii', maxLength: 80 }), (id) => {
        const short = shortId(id);
        if (id.length <= SHORT_ID_LIMIT) {
          expect(short).toBe(id);
          return;
        }
        const [head, tail, ...rest] = short.split('…');
        expect(rest).toEqual([]);
        expect(id.startsWith(head ?? '')).toBe(true);
        expect(id.endsWith(tail ?? '')).toBe(true);
        expect(tail).toHaveLength(3);
        expect(short.length).toBeLessThan(id.length);
        expect(short.length).toBeLessThanOrEqual(7 + 4 + 1 + 3);
      }),
    );
  });

  it('never cuts a character made of two UTF-16 units in half', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 15, maxLength: 60 }), (id) => {
        const short = shortId(id);
        // A lone half of a pair does not survive UTF-8: it becomes U+FFFD.
        expect(Buffer.from(short, 'utf8').toString('utf8')).toBe(short);
      }),
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readAuthorizationHeader } from './authorization-header.js';

/** One token as a client might send it: visible characters, never whitespace. */
const tokenArbitrary = fc
  .string({ minLength: 1, maxLength: 80, unit: 'binary' })
  .filter((token) => /^\S+$/.test(token));

/** `Bearer` in any case. */
const schemeArbitrary = fc
  .array(fc.boolean(), { minLength: 6, maxLength: 6 })
  .map((upper) =>
    [...'bearer'].map((letter, index) => (upper[index] ? letter.toUpperCase() : letter)).join(''),
  );

const separatorArbitrary = fc.stringMatching(/^[ \t]{1,4}$/);

describe('readAuthorizationHeader', () => {
  it('reads the token of a Bearer header, whatever the case of the scheme and the spacing', () => {
    fc.assert(
      fc.property(
        schemeArbitrary,
        separatorArbitrary,
        tokenArbitrary,
        fc.stringMatching(/^[ \t]{0,3}$/),
        (scheme, separator, token, trailing) => {
          expect(readAuthorizationHeader(`${scheme}${separator}${token}${trailing}`)).toEqual({
            kind: 'bearer',
            token,
          });
        },
      ),
    );
  });

  it('calls a header without the Bearer scheme malformed, never missing', () => {
    for (const header of [
      'hns_sa_1.c2VjcmV0',
      'Basic dXNlcjpwYXNz',
      'Token abc',
      'Bearer',
      'Bearer ',
      'Bearer a b',
      'Bearerabc',
      'Bearer: abc',
    ]) {
      expect(readAuthorizationHeader(header), header).toEqual({ kind: 'malformed' });
    }
    expect(readAuthorizationHeader(['Bearer a', 'Bearer b'])).toEqual({ kind: 'malformed' });
    // A bare token, whatever its characters: credentials were sent, under no scheme.
    fc.assert(
      fc.property(tokenArbitrary, (token) => {
        fc.pre(!/^bearer$/i.test(token));
        expect(readAuthorizationHeader(token)).toEqual({ kind: 'malformed' });
      }),
    );
  });

  it('calls no header, or an empty one, missing', () => {
    expect(readAuthorizationHeader(undefined)).toEqual({ kind: 'none' });
    expect(readAuthorizationHeader('')).toEqual({ kind: 'none' });
    expect(readAuthorizationHeader(' \t ')).toEqual({ kind: 'none' });
  });

  it('answers one of its three verdicts for any header, and a token only after Bearer', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200, unit: 'binary' }), (header) => {
        const presented = readAuthorizationHeader(header);
        if (presented.kind === 'bearer') {
          expect(header.trim()).toMatch(/^bearer[ \t]/i);
          expect(header.trim().endsWith(presented.token)).toBe(true);
          expect(presented.token).toMatch(/^\S+$/);
        } else if (presented.kind === 'none') {
          expect(header.trim()).toBe('');
        } else {
          expect(presented).toEqual({ kind: 'malformed' });
          expect(header.trim()).not.toBe('');
        }
      }),
      { numRuns: 2000 },
    );
  });
});

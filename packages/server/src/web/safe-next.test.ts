import { validateHeaderValue } from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeNext } from './safe-next.js';

describe('safeNext', () => {
  it('keeps a path of this site', () => {
    expect(safeNext('/audit-log')).toBe('/audit-log');
    expect(safeNext('/service-accounts/sa_1?page=2')).toBe('/service-accounts/sa_1?page=2');
  });

  it('answers / for another site, a scheme, a backslash, whitespace, a control or non-ASCII character or a sign-in page', () => {
    for (const value of [
      '',
      '//evil.example/',
      '/\\evil.example',
      'https://evil.example/',
      'javascript:alert(1)',
      '/ /x',
      '/audit-log\u0000',
      '/audit-log\u0001',
      '/audit-log\r\nSet-Cookie: a=b',
      '/audit-log\u007f',
      '/caf\u00e9',
      '/\u{1f600}',
      '/x\u2028',
      '/signin',
      '/signin/abc',
      '/signin?next=/x',
      `/${'a'.repeat(2048)}`,
    ]) {
      expect(safeNext(value)).toBe('/');
    }
  });

  it('never leaves the origin, whatever the input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 64, unit: 'binary' }), (value) => {
        const next = safeNext(value);
        const resolved = new URL(next, 'https://followup.example.org/');
        expect(resolved.origin).toBe('https://followup.example.org');
        expect(next.startsWith('/')).toBe(true);
        expect(resolved.pathname.startsWith('/signin/')).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('always answers a valid Location header value, whatever the input', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 64, unit: 'binary' }),
          fc.string({ maxLength: 64, unit: 'grapheme' }).map((text) => `/${text}`),
          fc
            .tuple(fc.webPath(), fc.string({ maxLength: 4, unit: 'binary' }))
            .map(([path, extra]) => `/${path}${extra}`),
        ),
        (value) => {
          const next = safeNext(value);
          expect(() => validateHeaderValue('location', next)).not.toThrow();
          expect(next).toMatch(/^\/[\x21-\x7e]*$/);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('keeps every printable-ASCII path of this site as it is', () => {
    fc.assert(
      fc.property(fc.webPath(), fc.webQueryParameters(), (path, query) => {
        const value = `/${path.replace(/^\/+/, '')}${query ? `?${query}` : ''}`;
        fc.pre(!value.startsWith('/signin'));
        expect(safeNext(value)).toBe(value);
      }),
    );
  });
});

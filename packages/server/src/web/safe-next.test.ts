import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeNext } from './safe-next.js';

describe('safeNext', () => {
  it('keeps a path of this site', () => {
    expect(safeNext('/audit-log')).toBe('/audit-log');
    expect(safeNext('/service-accounts/sa_1?page=2')).toBe('/service-accounts/sa_1?page=2');
  });

  it('answers / for another site, a scheme, a backslash, whitespace or a sign-in page', () => {
    for (const value of [
      '',
      '//evil.example/',
      '/\\evil.example',
      'https://evil.example/',
      'javascript:alert(1)',
      '/ /x',
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
});

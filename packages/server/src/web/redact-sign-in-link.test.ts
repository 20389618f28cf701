import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactSignInLink } from './redact-sign-in-link.js';

describe('redactSignInLink', () => {
  it('hides the token of a sign-in link in a path or a URL, and nothing else', () => {
    expect(redactSignInLink('/signin/tnywRLI10xercTmFKm-wiyt1GhGluemnBYdPE0123456')).toBe(
      '/signin/[redacted]',
    );
    expect(redactSignInLink('https://crm.example.org/signin/abc?next=/x')).toBe(
      'https://crm.example.org/signin/[redacted]?next=/x',
    );
    expect(redactSignInLink('/signin')).toBe('/signin');
    expect(redactSignInLink('/api/contacts')).toBe('/api/contacts');
    expect(redactSignInLink('https://crm.example.org/portal/link/abc')).toBe(
      'https://crm.example.org/portal/link/[redacted]',
    );
    expect(redactSignInLink('/portal/endpoints')).toBe('/portal/endpoints');
  });

  it('never lets the token of a portal link through, whatever surrounds it', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 20 }),
        fc.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        fc.string({ maxLength: 20 }),
        (before, token, after) => {
          expect(redactSignInLink(`${before}/portal/link/${token}${after}`)).not.toContain(token);
        },
      ),
    );
  });

  it('never lets a token through, whatever surrounds it', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 20 }),
        fc.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        fc.string({ maxLength: 20 }),
        (before, token, after) => {
          expect(redactSignInLink(`${before}/signin/${token}${after}`)).not.toContain(token);
        },
      ),
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../follow-up-error.js';
import { parseToken } from './token.js';

const accountId = fc.stringMatching(/^[A-Za-z0-9_]{1,64}$/);
const secretPart = fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/);

describe('parseToken', () => {
  it('accepts hns_<id>.<secret> and returns the account id', () => {
    fc.assert(
      fc.property(accountId, secretPart, (id, secret) => {
        expect(parseToken(`hns_${id}.${secret}`)).toEqual({ serviceAccountId: id });
      }),
    );
  });

  it('refuses malformed tokens without repeating any part of them', () => {
    const malformed = [
      '',
      'hns_',
      'hns_sa_1',
      'hns_sa_1.',
      'hns_.secretpart',
      'tok_sa_1.secretpart',
      'Bearer hns_sa_1.secretpart',
      ' hns_sa_1.secretpart',
      'hns_sa_1.secret.part',
      'hns_sa_1.secret part',
      // The account id is what the server issues: 1 to 64 of A-Z, a-z, 0-9 and _.
      'hns_sa-1.secretpart',
      `hns_${'a'.repeat(65)}.secretpart`,
    ];
    for (const token of malformed) {
      let thrown: unknown;
      try {
        parseToken(token);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ConfigurationError);
      if (token.includes('secret')) {
        expect((thrown as Error).message).not.toContain('secret.part');
        expect((thrown as Error).message).not.toContain('secretpart');
      }
    }
    expect(() => parseToken(undefined)).toThrow(ConfigurationError);
    expect(() => parseToken(42)).toThrow(ConfigurationError);
  });

  it('never echoes a secret of a malformed token', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 20 }),
        fc.stringMatching(/^[A-Za-z0-9]{12,30}$/),
        (prefix, secret) => {
          const token = `${prefix}.${secret}!`;
          try {
            parseToken(token);
          } catch (error) {
            expect((error as Error).message).not.toContain(secret);
          }
        },
      ),
    );
  });
});

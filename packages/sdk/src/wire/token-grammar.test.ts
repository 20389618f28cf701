import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  splitToken,
  TOKEN_PREFIX,
  TOKEN_SECRET_BYTES,
  TOKEN_SECRET_LENGTH,
} from './token-grammar.js';

const accountId = fc.stringMatching(/^[A-Za-z0-9_]{1,64}$/);
const secret = fc.stringMatching(/^[A-Za-z0-9_-]{1,100}$/);

describe('the token grammar of the wire contract', () => {
  it('splits hns_<account id>.<secret> into its parts', () => {
    fc.assert(
      fc.property(accountId, secret, (id, value) => {
        expect(splitToken(`${TOKEN_PREFIX}${id}.${value}`)).toEqual({
          accountId: id,
          secret: value,
        });
      }),
    );
  });

  it('refuses anything else', () => {
    for (const token of [
      '',
      'hns_',
      'hns_.abc',
      'hns_sa_1.',
      'hns_sa_1',
      'hns_sa-1.abc',
      `hns_${'a'.repeat(65)}.abc`,
      'hns_sa_1.a.b',
      'hns_sa_1.a=',
      'Bearer hns_sa_1.abc',
      'hns_sa_1.abc\n',
    ]) {
      expect(splitToken(token), token).toBeUndefined();
    }
    fc.assert(
      fc.property(fc.string(), (text) => {
        const parts = splitToken(text);
        if (parts !== undefined)
          expect(`${TOKEN_PREFIX}${parts.accountId}.${parts.secret}`).toBe(text);
      }),
    );
  });

  it('says how long an issued secret is: 32 bytes, unpadded base64url', () => {
    expect(Math.ceil((TOKEN_SECRET_BYTES * 4) / 3)).toBe(TOKEN_SECRET_LENGTH);
  });
});

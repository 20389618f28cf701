import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { formatToken, generateSecret, hashSecret, parseToken } from './token-format.js';

describe('token format', () => {
  it('makes a 32-byte base64url secret', () => {
    const secret = generateSecret((size) => new Uint8Array(size).fill(0xfb));
    expect(secret).toHaveLength(43);
    expect(Buffer.from(secret, 'base64url')).toEqual(Buffer.alloc(32, 0xfb));
    expect(secret).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('round-trips hns_<accountId>.<secret>', () => {
    const secret = generateSecret();
    const token = formatToken('sa_01ARYZ6S41TSV4RRFFQ69G5FAV', secret);
    expect(token).toBe(`hns_sa_01ARYZ6S41TSV4RRFFQ69G5FAV.${secret}`);
    expect(parseToken(token)).toEqual({ accountId: 'sa_01ARYZ6S41TSV4RRFFQ69G5FAV', secret });
  });

  it.each([
    ['empty', ''],
    ['no prefix', `sa_1.${'a'.repeat(43)}`],
    ['other prefix', `hnx_sa_1.${'a'.repeat(43)}`],
    ['no dot', `hns_sa_1${'a'.repeat(43)}`],
    ['two dots', `hns_sa.1.${'a'.repeat(43)}`],
    ['short secret', `hns_sa_1.${'a'.repeat(42)}`],
    ['long secret', `hns_sa_1.${'a'.repeat(44)}`],
    ['padded secret', `hns_sa_1.${'a'.repeat(42)}=`],
    ['empty account', `hns_.${'a'.repeat(43)}`],
    ['space', `hns_sa_1.${'a'.repeat(43)} `],
  ])('refuses a malformed token (%s)', (_name, token) => {
    expect(parseToken(token)).toBeUndefined();
  });

  it('hashes the secret with SHA-256', () => {
    expect(hashSecret('abc').toString('hex')).toBe(
      createHash('sha256').update('abc').digest('hex'),
    );
  });
});

import { describe, expect, it } from 'vitest';
import {
  hashPassword,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  passwordProblem,
  verifyPassword,
} from './passwords.js';

describe('passwords', () => {
  it('accepts 12 to 1,024 characters, counted as code points', () => {
    expect(passwordProblem('a'.repeat(MIN_PASSWORD_LENGTH - 1))).toBe(
      'A password has at least 12 characters.',
    );
    expect(passwordProblem('a'.repeat(MIN_PASSWORD_LENGTH))).toBeUndefined();
    // 12 emoji are 24 UTF-16 units but 12 characters.
    expect(passwordProblem('🔑'.repeat(11))).toBeDefined();
    expect(passwordProblem('🔑'.repeat(12))).toBeUndefined();
    expect(passwordProblem('a'.repeat(MAX_PASSWORD_LENGTH))).toBeUndefined();
    expect(passwordProblem('a'.repeat(MAX_PASSWORD_LENGTH + 1))).toBe(
      'A password has at most 1024 characters.',
    );
  });

  it('hashes with argon2id at OWASP parameters, salted, and verifies', async () => {
    const first = await hashPassword('correct horse battery');
    const second = await hashPassword('correct horse battery');
    expect(first).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(first).not.toBe(second);
    expect(await verifyPassword(first, 'correct horse battery')).toBe(true);
    expect(await verifyPassword(first, 'correct horse batterz')).toBe(false);
  });

  it('answers false, never throws, without a hash or with a broken one', async () => {
    expect(await verifyPassword(undefined, 'anything at all')).toBe(false);
    expect(await verifyPassword(null, 'anything at all')).toBe(false);
    expect(await verifyPassword('not a phc string', 'anything at all')).toBe(false);
  });
});

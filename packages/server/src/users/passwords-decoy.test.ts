import { describe, expect, it, vi } from 'vitest';

// Counts the argon2 hashes made: the decoy of an unknown e-mail must be made before the first
// sign-in, never during it (a first unknown e-mail would take a hash longer than a wrong
// password, and tell that the e-mail has no account).
vi.mock('@node-rs/argon2', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@node-rs/argon2')>();
  return { ...actual, hash: vi.fn(actual.hash) };
});

const argon2 = await import('@node-rs/argon2');
const { prepareDecoyHash, verifyPassword } = await import('./passwords.js');

describe('the decoy hash of unknown e-mails', () => {
  it('is made once, ahead of the first check, so no check of an unknown e-mail makes a hash', async () => {
    const hash = vi.mocked(argon2.hash);
    const first = prepareDecoyHash();
    expect(prepareDecoyHash()).toBe(first);
    expect(await first).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    const made = hash.mock.calls.length;
    expect(made).toBe(1);
    expect(await verifyPassword(undefined, 'a first unknown e-mail')).toBe(false);
    expect(await verifyPassword(null, 'and a second one')).toBe(false);
    expect(hash.mock.calls.length).toBe(made);
  });
});

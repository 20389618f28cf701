import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../test/support/database.js';
import { insertServiceAccount } from './service-account-store.js';
import { findTokenRow, insertTokenRow, writeTokenLastUsed } from './token-store.js';

describe('token store', () => {
  const database = useTestDatabase();
  const start = Date.parse('2026-01-01T00:00:00Z');

  it('writes last_used_at only once the stored value is a resolution old, whoever writes', async () => {
    await insertServiceAccount(database(), {
      id: 'sa_1',
      name: 'sync',
      role: 'AGENT',
      createdAt: new Date(start).toISOString(),
    });
    await insertTokenRow(database(), {
      id: 'tok_1',
      accountId: 'sa_1',
      label: null,
      secretSha256: Buffer.alloc(32, 1),
      createdAt: start,
      expiresAt: null,
    });
    const lastUsed = async () =>
      new Date((await findTokenRow(database(), 'tok_1'))?.last_used_at ?? Number.NaN).getTime();
    // As two instances would, each without the other's memory of what it wrote.
    await writeTokenLastUsed(database(), { tokenId: 'tok_1', now: start, resolutionMs: 60_000 });
    await writeTokenLastUsed(database(), {
      tokenId: 'tok_1',
      now: start + 59_999,
      resolutionMs: 60_000,
    });
    expect(await lastUsed()).toBe(start);
    await writeTokenLastUsed(database(), {
      tokenId: 'tok_1',
      now: start + 60_000,
      resolutionMs: 60_000,
    });
    expect(await lastUsed()).toBe(start + 60_000);
  });
});

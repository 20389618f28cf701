import { describe, expect, it, vi } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { createIdGenerator } from '../ids.js';
import * as passwords from './passwords.js';
import { createSessionStore } from './sessions.js';
import { setPasswordWithLink, signInWithPassword } from './sign-in.js';
import { createSignInThrottle } from './sign-in-throttle.js';

describe('setPasswordWithLink', () => {
  const database = useTestDatabase();

  it('spends no password hash on a link that cannot be used', async () => {
    const clock = manualClock();
    const newId = createIdGenerator({ now: () => clock.now() });
    const hash = vi.spyOn(passwords, 'hashPassword');
    const result = await setPasswordWithLink(
      {
        database: database(),
        clock,
        newId,
        sessions: createSessionStore({ database: database(), clock, newId }),
        throttle: createSignInThrottle({ clock }),
      },
      {
        token: 'A'.repeat(43),
        password: 'a long enough password',
        confirmation: 'a long enough password',
        address: '192.0.2.1',
      },
    );
    expect(result).toEqual({ ok: false, reason: 'link_unusable' });
    expect(hash).not.toHaveBeenCalled();
    hash.mockRestore();
  });
});

describe('signInWithPassword', () => {
  const database = useTestDatabase();

  it('checks at most the limit of a concurrent burst of wrong passwords, and throttles the rest', async () => {
    const clock = manualClock();
    const newId = createIdGenerator({ now: () => clock.now() });
    const context = {
      database: database(),
      clock,
      newId,
      sessions: createSessionStore({ database: database(), clock, newId }),
      throttle: createSignInThrottle({ clock }),
    };
    // Twenty attempts at once: each would pass a check made before the failures are counted.
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, attempt) =>
        signInWithPassword(context, {
          email: 'target@example.com',
          password: `wrong password number ${attempt}`,
          address: `192.0.2.${attempt}`,
        }),
      ),
    );
    const reasons = results.map((result) => (result.ok ? 'ok' : result.reason));
    expect(reasons.filter((reason) => reason === 'invalid')).toHaveLength(5);
    expect(reasons.filter((reason) => reason === 'throttled')).toHaveLength(15);
    for (const result of results) {
      if (!result.ok && result.reason === 'throttled') expect(result.retryAfterSeconds).toBe(900);
    }
    // Each password checked left its audit entry: five, and one burst.
    const { rows } = await database().query<{ action: string; count: number }>(
      `SELECT action, count(*)::int AS count FROM audit_entries GROUP BY action ORDER BY action`,
    );
    expect(rows).toEqual([
      { action: 'sign_in.throttled', count: 1 },
      { action: 'user.sign_in_failed', count: 5 },
    ]);
    // A throttled attempt counts nothing against its address.
    const addresses = await database().query<{ failures: number }>(
      `SELECT failures FROM sign_in_failures WHERE key LIKE 'address:%'`,
    );
    expect(addresses.rows.map((row) => row.failures)).toEqual([1, 1, 1, 1, 1]);
  });

  it('gives the place of a successful sign-in back to its address', async () => {
    const clock = manualClock();
    const newId = createIdGenerator({ now: () => clock.now() });
    const context = {
      database: database(),
      clock,
      newId,
      sessions: createSessionStore({ database: database(), clock, newId }),
      throttle: createSignInThrottle({ clock, policy: { perAddress: 2 } }),
    };
    const passwordHash = await passwords.hashPassword('the right password');
    await database().query(
      `INSERT INTO users (id, email, name, role, password_hash, created_at)
       VALUES ('usr_1', 'user@example.com', 'User', 'AGENT', $1, $2)`,
      [passwordHash, new Date(clock.now())],
    );
    const attempt = { email: 'user@example.com', address: '192.0.2.1' };
    for (let round = 0; round < 3; round++) {
      const result = await signInWithPassword(context, {
        ...attempt,
        password: 'the right password',
      });
      expect(result.ok).toBe(true);
    }
    expect(
      (await signInWithPassword(context, { ...attempt, password: 'a wrong password' })).ok,
    ).toBe(false);
    const { rows } = await database().query<{ key: string; failures: number }>(
      'SELECT key, failures FROM sign_in_failures ORDER BY key',
    );
    expect(rows).toEqual([
      { key: 'account:user@example.com', failures: 1 },
      { key: 'address:192.0.2.1', failures: 1 },
    ]);
  });
});

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { openUnicodeCaseTestDatabase, useTestDatabase } from '../../test/support/database.js';
import { testPasswordHash } from '../../test/support/password-hash.js';
import { createIdGenerator } from '../ids.js';
import type { Database } from '../storage/database.js';
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
    const passwordHash = await testPasswordHash('the right password');
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

/**
 * For each ASCII letter, the other characters a person or an attacker might type for it: its
 * other case, and every character whose case mapping in Unicode yields it (`İ` lowers to `i̇`,
 * the Kelvin sign `K` to `k`, `ſ` uppers to `S`, `ß` to `SS`, `ﬁ` to `FI`…). Which of them a
 * database's `lower()` folds onto the letter depends on its locale.
 */
function letterVariants(): Map<string, string[]> {
  const variants = new Map<string, Set<string>>();
  for (let codePoint = 0x80; codePoint <= 0x1ffff; codePoint++) {
    if (codePoint >= 0xd800 && codePoint <= 0xdfff) continue;
    const character = String.fromCodePoint(codePoint);
    for (const mapped of [character.toLowerCase(), character.toUpperCase()]) {
      const letter = mapped[0]?.toLowerCase() ?? '';
      if (mapped === character || !/^[a-z]$/.test(letter)) continue;
      if (!variants.has(letter)) variants.set(letter, new Set());
      variants.get(letter)?.add(character);
    }
  }
  return new Map([...variants].map(([letter, set]) => [letter, [...set]]));
}

describe('signInWithPassword over Unicode spellings', () => {
  let database: Database;
  let passwordHash: string;
  const variants = letterVariants();

  beforeAll(async () => {
    database = await openUnicodeCaseTestDatabase();
    passwordHash = await testPasswordHash('the right password');
  });
  afterAll(async () => {
    await database?.close();
  });

  async function foundBy(spelling: string): Promise<boolean> {
    const { rows } = await database.query(
      'SELECT id FROM users WHERE lower(email) = lower($1::text) AND disabled_at IS NULL',
      [spelling.trim()],
    );
    return rows.length > 0;
  }

  /**
   * Any spelling of an address: each character of its local part as it is, in another case, or
   * a Unicode variant of it; its domain in any ASCII case.
   */
  function spellingOf(address: string): fc.Arbitrary<string> {
    const at = address.indexOf('@');
    const local = [...address.slice(0, at)].map((character) => {
      const others = variants.get(character.toLowerCase()) ?? [];
      return fc.oneof(
        { weight: 4, arbitrary: fc.constant(character) },
        { weight: 3, arbitrary: fc.constant(character.toUpperCase()) },
        ...(others.length > 0 ? [{ weight: 2, arbitrary: fc.constantFrom(...others) }] : []),
      );
    });
    const domain = [...address.slice(at)].map((character) =>
      fc.constantFrom(character, character.toUpperCase()),
    );
    return fc.tuple(...local, ...domain).map((characters) => characters.join(''));
  }

  /** An address as stored: ASCII letters, and some cased letters beyond ASCII. */
  const addressArbitrary = fc
    .array(fc.constantFrom(...'abiklmsz', 'é', 'σ', 'ς', 'ß', 'ı', 'ǅ'), {
      minLength: 1,
      maxLength: 10,
    })
    .map((letters) => `${letters.join('')}@example.com`);

  it('folds case beyond ASCII in this database, as a UTF-8 locale does', async () => {
    const { rows } = await database.query<{ folded: string }>("SELECT lower('tİm ΑΣ') AS folded");
    expect(rows[0]?.folded).toBe('tim ασ');
  });

  it('counts every spelling that finds one user against one limit', async () => {
    const clock = manualClock();
    const newId = createIdGenerator({ now: () => clock.now() });
    const context = {
      database,
      clock,
      newId,
      sessions: createSessionStore({ database, clock, newId }),
      // One failure per account and window: the next attempt under the same key is throttled.
      throttle: createSignInThrottle({ clock, policy: { perAccount: 1, perAddress: 1000 } }),
    };
    await fc.assert(
      fc.asyncProperty(
        addressArbitrary.chain((address) =>
          fc.tuple(fc.constant(address), spellingOf(address), spellingOf(address)),
        ),
        async ([address, first, second]) => {
          await database.query('DELETE FROM sign_in_failures');
          await database.query('DELETE FROM users');
          await database.query(
            `INSERT INTO users (id, email, name, role, password_hash, created_at)
             VALUES ('usr_1', $1, 'User', 'AGENT', $2, $3)`,
            [address, passwordHash, new Date(clock.now())],
          );
          // Spellings that find nobody are not this property's business (most do find).
          fc.pre((await foundBy(first)) && (await foundBy(second)));
          const failed = await signInWithPassword(context, {
            email: first,
            password: 'a wrong password',
            address: '192.0.2.1',
          });
          expect(failed).toEqual({ ok: false, reason: 'invalid' });
          const next = await signInWithPassword(context, {
            email: second,
            password: 'the right password',
            address: '192.0.2.2',
          });
          expect(next, `${first} then ${second}`).toMatchObject({
            ok: false,
            reason: 'throttled',
          });
        },
      ),
      {
        numRuns: 50,
        examples: [
          [['tim@example.com', 'tim@example.com', 'tİm@example.com']],
          [['ασ@example.com', 'ασ@example.com', 'ΑΣ@example.com']],
          [['kim@example.com', '\u212aim@example.com', 'KIM@example.com']],
        ],
      },
    );
  });
});

import { describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { createIdGenerator } from '../ids.js';
import { createSessionStore } from './sessions.js';
import { createSignInLink, findUsableSignInLink, pruneSignInRecords } from './sign-in-links.js';
import { createSignInThrottle, signInKeys } from './sign-in-throttle.js';

describe('sign-in links and pruning', () => {
  const database = useTestDatabase();

  async function setUp() {
    const clock = manualClock();
    const newId = createIdGenerator({ now: () => clock.now() });
    await database().query(
      `INSERT INTO users (id, email, name, role, created_at) VALUES ('usr_1', 'a@example.com', 'A', 'ADMIN', $1)`,
      [new Date(clock.now())],
    );
    return { clock, newId, sessions: createSessionStore({ database: database(), clock, newId }) };
  }

  it('a link works once, until 24 hours, and only its hash is stored', async () => {
    const { clock, newId } = await setUp();
    const link = await createSignInLink(database(), 'usr_1', { clock, newId });
    expect(link.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const { rows } = await database().query('SELECT * FROM sign_in_links');
    expect(JSON.stringify(rows)).not.toContain(link.token);
    expect(await findUsableSignInLink(database(), link.token, clock)).toMatchObject({
      userId: 'usr_1',
    });
    clock.advance(24 * 60 * 60 * 1000 - 1);
    expect(
      await findUsableSignInLink(database(), link.token, clock, { consume: true }),
    ).toBeDefined();
    expect(await findUsableSignInLink(database(), link.token, clock)).toBeUndefined();
    const other = await createSignInLink(database(), 'usr_1', { clock, newId });
    clock.advance(24 * 60 * 60 * 1000);
    expect(await findUsableSignInLink(database(), other.token, clock)).toBeUndefined();
    expect(await findUsableSignInLink(database(), 'not a token', clock)).toBeUndefined();
  });

  it('pruneSignInRecords deletes expired and idle sessions, used and expired links, ended failure windows', async () => {
    const { clock, newId, sessions } = await setUp();
    const throttle = createSignInThrottle({ clock });
    const used = await createSignInLink(database(), 'usr_1', { clock, newId });
    await findUsableSignInLink(database(), used.token, clock, { consume: true });
    await createSignInLink(database(), 'usr_1', { clock, newId }); // expires in 24 h
    const idle = await sessions.start(database(), 'usr_1');
    await throttle.reserve(database(), signInKeys('a@example.com', '192.0.2.1'));
    clock.advance(20 * 60 * 1000);
    const active = await sessions.start(database(), 'usr_1');

    const first = await pruneSignInRecords(database(), { now: clock.now() });
    expect(first).toEqual({ sessions: 0, links: 1, failures: 2 });
    clock.advance(15 * 60 * 1000); // the first session is now 35 minutes idle
    expect(await pruneSignInRecords(database(), { now: clock.now() })).toEqual({
      sessions: 1,
      links: 0,
      failures: 0,
    });
    expect(await sessions.resolve(idle.cookieValue)).toBeUndefined();
    expect(await sessions.resolve(active.cookieValue)).toBeDefined();
    clock.advance(24 * 60 * 60 * 1000);
    expect(await pruneSignInRecords(database(), { now: clock.now() })).toEqual({
      sessions: 1,
      links: 1,
      failures: 0,
    });
  });
});

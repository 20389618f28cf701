import { describe, expect, it, vi } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { testDriver, useTestDatabase } from '../../test/support/database.js';
import { buildServer } from '../build-server.js';
import type { Database, ListenOptions } from '../storage/database.js';
import { TOKEN_REVOKED_CHANNEL } from '../stores/token-store.js';
import { createAccountStore } from './account-store.js';
import { createTokenCache } from './token-cache.js';

const LOOKUP = 'FROM service_accounts a JOIN tokens t';

/** The database, counting the token lookups that go through it. */
function counting(database: Database): { database: Database; lookups: () => number } {
  let lookups = 0;
  const wrapped: Database = {
    driver: database.driver,
    query: (sql, params) => {
      if (sql.includes(LOOKUP)) lookups++;
      return database.query(sql, params);
    },
    transaction: (callback) => database.transaction(callback),
    listen: (channel, onNotify, options) =>
      database.listen
        ? database.listen(channel, onNotify, options)
        : Promise.resolve(async () => {}),
    close: () => database.close(),
  };
  return { database: wrapped, lookups: () => lookups };
}

const account = {
  id: 'sa_1',
  name: 'a',
  role: 'ADMIN' as const,
  createdAt: '2026-03-01T09:00:00.000Z',
  disabledAt: null,
};

describe('token cache', () => {
  const database = useTestDatabase();

  it('answers a warm request without a lookup; a revocation in this process ends it at once', async () => {
    const clock = manualClock();
    const { database: counted, lookups } = counting(database());
    const app = buildServer({ database: counted, clock, logger: false });
    await app.ready();
    const store = createAccountStore({ database: counted, clock });
    const created = await store.createAccount({ name: 'cached', role: 'READONLY' });
    const issued = await store.issueToken({ accountId: created.id });
    const get = () =>
      app.inject({
        method: 'GET',
        url: '/api/contacts',
        headers: { authorization: `Bearer ${issued.token}` },
      });
    expect((await get()).statusCode).toBe(200);
    expect((await get()).statusCode).toBe(200);
    expect((await get()).statusCode).toBe(200);
    expect(lookups()).toBe(1);
    // A wrong secret for the same account is never answered from memory.
    const wrong = `${issued.token.slice(0, -2)}${issued.token.endsWith('AA') ? 'BB' : 'AA'}`;
    const refused = await app.inject({
      method: 'GET',
      url: '/api/contacts',
      headers: { authorization: `Bearer ${wrong}` },
    });
    expect(refused.json()).toMatchObject({ code: 'token_invalid' });
    // Revoked through another store on the same database (as the CLI and the pages do).
    await createAccountStore({ database: counted, clock }).revokeToken({ tokenId: issued.id });
    expect((await get()).json()).toMatchObject({ code: 'token_revoked' });
    await app.close();
  });

  it('never answers for a token past its expiry, by the injected clock', async () => {
    const clock = manualClock();
    const app = buildServer({ database: database(), clock, logger: false });
    await app.ready();
    const store = createAccountStore({ database: database(), clock });
    const created = await store.createAccount({ name: 'ttl', role: 'READONLY' });
    const issued = await store.issueToken({ accountId: created.id, ttlSeconds: 2 });
    const get = () =>
      app.inject({
        method: 'GET',
        url: '/api/contacts',
        headers: { authorization: `Bearer ${issued.token}` },
      });
    expect((await get()).statusCode).toBe(200);
    clock.advance(1_999);
    expect((await get()).statusCode).toBe(200);
    clock.advance(1);
    expect((await get()).json()).toMatchObject({ code: 'token_expired' });
    await app.close();
  });

  it('keeps out a lookup that a change overtook, and forgets after its time', () => {
    const clock = manualClock();
    const cache = createTokenCache({
      database: { ...database(), driver: 'pglite' },
      clock,
      ttlMs: 1_000,
    });
    const token = { tokenId: 'tok_1', account, expiresAt: null };
    const before = cache.version();
    cache.clear();
    cache.set('k', token, before);
    expect(cache.get('k')).toBeUndefined();
    cache.set('k', token, cache.version());
    expect(cache.get('k')).toMatchObject({ tokenId: 'tok_1' });
    clock.advance(1_000);
    expect(cache.get('k')).toBeUndefined();
  });

  it('on PostgreSQL answers nothing until it listens, nor while the listener is down', async () => {
    let onListening: ListenOptions['onListening'];
    let onNotify: () => void = () => {};
    const fake: Database = {
      ...database(),
      driver: 'postgres',
      listen: async (channel, notify, options) => {
        expect(channel).toBe(TOKEN_REVOKED_CHANNEL);
        // Only its own schema's revocations (the account store names the schema in the payload).
        expect(options?.ownSchemaOnly).toBe(true);
        onNotify = notify;
        onListening = options?.onListening;
        return async () => {};
      },
    };
    const cache = createTokenCache({ database: fake, clock: manualClock() });
    await cache.ready;
    const token = { tokenId: 'tok_1', account, expiresAt: null };
    cache.set('k', token, cache.version());
    expect(cache.get('k')).toBeUndefined();
    onListening?.(true);
    cache.set('k', token, cache.version());
    expect(cache.get('k')).toBeDefined();
    onNotify();
    expect(cache.get('k')).toBeUndefined();
    cache.set('k', token, cache.version());
    onListening?.(false);
    expect(cache.get('k')).toBeUndefined();
    cache.set('k', token, cache.version());
    expect(cache.get('k')).toBeUndefined();
    onListening?.(true);
    expect(cache.get('k')).toBeUndefined();
    await cache.close();
  });

  it.runIf(testDriver === 'postgres')(
    'sees a revocation made by another instance once its notification arrives',
    async () => {
      const clock = manualClock();
      const { database: counted, lookups } = counting(database());
      const app = buildServer({ database: counted, clock, logger: false });
      await app.ready();
      // Another instance: a database object of its own (the test wrapper's), no shared memory.
      const other: Database = { ...database() };
      const store = createAccountStore({ database: other, clock });
      const created = await store.createAccount({ name: 'shared', role: 'READONLY' });
      const issued = await store.issueToken({ accountId: created.id });
      const get = () =>
        app.inject({
          method: 'GET',
          url: '/api/contacts',
          headers: { authorization: `Bearer ${issued.token}` },
        });
      expect((await get()).statusCode).toBe(200);
      expect((await get()).statusCode).toBe(200);
      expect(lookups()).toBe(1);
      await store.revokeToken({ tokenId: issued.id });
      // The notification arrives on the listening connection shortly after the commit.
      await vi.waitFor(
        async () => expect((await get()).json()).toMatchObject({ code: 'token_revoked' }),
        {
          timeout: 10_000,
          interval: 20,
        },
      );
      await app.close();
    },
  );
});

import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/support/server.js';
import { buildServer } from '../build-server.js';
import type { Database } from '../storage/database.js';
import { clientAddressKey } from './address-limits.js';

describe('clientAddressKey', () => {
  it('counts IPv4 as it is, IPv4-mapped IPv6 as IPv4, and IPv6 by its /64', () => {
    expect(clientAddressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientAddressKey('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(clientAddressKey('2001:db8:1:3::1')).not.toBe(clientAddressKey('2001:db8:1:2::1'));
  });
});

const ehrSecret = 'athena-secret-42';

describe('per-address limits on the routes anyone may call', () => {
  const server = useTestServer({
    addressRateLimit: { limit: 4, windowSeconds: 60 },
    ehrWebhookSecrets: { athenahealth: ehrSecret },
  });

  async function receiptCount() {
    const { rows } = await server().database.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM ehr_receipts',
    );
    return rows[0]?.count;
  }

  function ehr(remoteAddress: string, vendor = 'nobody') {
    return server().app.inject({
      method: 'POST',
      url: `/api/ehr/webhooks/${vendor}`,
      remoteAddress,
      payload: '{}',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature': `sha256=${createHmac('sha256', 'wrong').update('{}').digest('hex')}`,
      },
    });
  }

  it('answers 429 rate_limited with Retry-After past the budget, and stores nothing more', async () => {
    for (let index = 0; index < 4; index++) {
      expect((await ehr('198.51.100.9')).statusCode).toBe(404);
    }
    const limited = await ehr('198.51.100.9', 'athenahealth');
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('15');
    expect(limited.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(limited.json()).toMatchObject({ code: 'rate_limited' });
    expect(limited.headers['ratelimit-policy']).toBe('"per-address";q=4;w=60');
    expect(await receiptCount()).toBe(4);
    // Another address, and the same one once time passed, get through.
    expect((await ehr('198.51.100.10')).statusCode).toBe(404);
    server().clock.advance(15_000);
    expect((await ehr('198.51.100.9')).statusCode).toBe(404);
  });

  it('counts the inbox and the EHR webhooks of one address together, and an IPv6 /64 as one', async () => {
    for (let index = 0; index < 2; index++) {
      expect((await ehr(`2001:db8:5:6::${index + 1}`)).statusCode).toBe(404);
    }
    for (let index = 0; index < 2; index++) {
      const response = await server().app.inject({
        method: 'POST',
        url: '/api/inbox/webhook',
        remoteAddress: '2001:db8:5:6:ffff::9',
        payload: { from: 'a@example.com', subject: 'hello' },
      });
      expect(response.statusCode).toBe(201);
    }
    const limited = await server().app.inject({
      method: 'POST',
      url: '/api/inbox/webhook',
      remoteAddress: '2001:db8:5:6::77',
      payload: { from: 'a@example.com', subject: 'hello' },
    });
    expect(limited.statusCode).toBe(429);
    const { rows } = await server().database.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM messages',
    );
    expect(rows[0]?.count).toBe(2);
  });
});

describe('per-address limit on sign-in', () => {
  const server = useTestServer({ addressRateLimit: { limit: 2, windowSeconds: 60 } });

  it('answers 429 past the budget of an address on POST /signin and sign-in links', async () => {
    const signIn = (url: string, remoteAddress: string) =>
      server().app.inject({
        method: url === '/signin' ? 'POST' : 'GET',
        url,
        remoteAddress,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        ...(url === '/signin' ? { payload: 'email=a%40example.com&password=wrong' } : {}),
      });
    expect((await signIn('/signin', '192.0.2.77')).statusCode).not.toBe(429);
    expect((await signIn('/signin/not-a-link', '192.0.2.77')).statusCode).not.toBe(429);
    expect((await signIn('/signin', '192.0.2.77')).statusCode).toBe(429);
    expect((await signIn('/signin/not-a-link', '192.0.2.77')).statusCode).toBe(429);
    expect((await signIn('/signin', '192.0.2.78')).statusCode).not.toBe(429);
  });
});

describe('failed-authentication throttle', () => {
  const server = useTestServer({ authFailureLimit: { limit: 3, windowSeconds: 60 } });

  it('answers 429 with Retry-After once an address failed too often, before any token lookup', async () => {
    const { token, accountId } = await server().tokenFor('ADMIN');
    // A server on the same database whose queries are counted.
    let queries = 0;
    const database: Database = {
      ...server().database,
      query: (sql, params) => {
        queries++;
        return server().database.query(sql, params);
      },
    };
    const app = buildServer({
      database,
      clock: server().clock,
      logger: false,
      authFailureLimit: { limit: 3, windowSeconds: 60 },
    });
    try {
      const call = (bearer: string, remoteAddress = '192.0.2.1') =>
        app.inject({
          method: 'GET',
          url: '/api/audit',
          remoteAddress,
          headers: { authorization: `Bearer ${bearer}` },
        });
      const wrongSecret = `hns_${accountId}.${'A'.repeat(43)}`;
      const unknownAccount = `hns_sa_01JZZZZZZZZZZZZZZZZZZZZZZZ.${'A'.repeat(43)}`;
      expect((await call(wrongSecret)).statusCode).toBe(401);
      expect((await call(unknownAccount)).statusCode).toBe(401);
      expect((await call('not-a-token')).statusCode).toBe(401);
      const before = queries;
      for (const bearer of [unknownAccount, wrongSecret, token]) {
        const limited = await call(bearer);
        expect(limited.statusCode).toBe(429);
        expect(limited.headers['retry-after']).toBe('20');
        expect(limited.json()).toMatchObject({ code: 'rate_limited' });
      }
      // Refused before the database: no token lookup.
      expect(queries).toBe(before);
      // Other addresses are not affected; the address recovers with time.
      expect((await call(token, '192.0.2.2')).statusCode).toBe(200);
      server().clock.advance(20_000);
      expect((await call(token)).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('gives an unknown account and a wrong secret the same work: one lookup, one comparison', async () => {
    const { accountId } = await server().tokenFor('ADMIN');
    const seen: string[] = [];
    const database: Database = {
      ...server().database,
      query: (sql, params) => {
        seen.push(sql);
        return server().database.query(sql, params);
      },
    };
    const app = buildServer({ database, clock: server().clock, logger: false });
    try {
      const call = (bearer: string) =>
        app.inject({
          method: 'GET',
          url: '/api/audit',
          remoteAddress: '192.0.2.50',
          headers: { authorization: `Bearer ${bearer}` },
        });
      const wrong = await call(`hns_${accountId}.${'A'.repeat(43)}`);
      const wrongQueries = seen.splice(0);
      const unknown = await call(`hns_sa_01JZZZZZZZZZZZZZZZZZZZZZZZ.${'A'.repeat(43)}`);
      const unknownQueries = seen.splice(0);
      expect(wrong.statusCode).toBe(401);
      expect(unknown.statusCode).toBe(401);
      expect(unknown.json().code).toBe(wrong.json().code);
      expect(unknownQueries).toEqual(wrongQueries);
    } finally {
      await app.close();
    }
  });
});

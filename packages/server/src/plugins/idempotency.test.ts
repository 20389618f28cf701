import type { FastifyInstance } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { useTestServer } from '../../test/support/server.js';
import { buildServer } from '../build-server.js';
import { IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_LEASE_RENEW_MS } from './idempotency.js';

let runs = 0;
let behaviour: () => Promise<void> = async () => {};

function addTestRoute(app: FastifyInstance) {
  app.post(
    '/test/things',
    { config: { idempotent: true }, onRequest: app.requireCapability('contacts.write') },
    async (request, reply) => {
      runs++;
      await behaviour();
      return reply.code(201).send({ run: runs, body: request.body });
    },
  );
}

const server = useTestServer({ configure: addTestRoute });

/** A behaviour that holds the request until `release()`; `entered` resolves once it runs. */
function holdRequests() {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let entered: () => void = () => {};
  const inHandler = new Promise<void>((resolve) => {
    entered = resolve;
  });
  behaviour = () => {
    entered();
    return gate;
  };
  return { release, entered: inHandler };
}

function create(token: string, body: unknown, key?: string) {
  return server().app.inject({
    method: 'POST',
    url: '/test/things',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...(key === undefined ? {} : { 'idempotency-key': key }),
    },
    payload: JSON.stringify(body),
  });
}

describe('Idempotency-Key', () => {
  it('answers the first response again for the same key and body, and runs nothing new', async () => {
    runs = 0;
    behaviour = async () => {};
    const { token } = await server().tokenFor('AGENT');
    const first = await create(token, { name: 'a' }, 'key-1');
    const second = await create(token, { name: 'a' }, 'key-1');
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.body).toBe(first.body);
    expect(second.headers['content-type']).toBe(first.headers['content-type']);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(runs).toBe(1);
  });

  it('answers 409 idempotency_conflict for the same key with another body', async () => {
    runs = 0;
    const { token } = await server().tokenFor('AGENT');
    await create(token, { name: 'a' }, 'key-1');
    const conflict = await create(token, { name: 'b' }, 'key-1');
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toMatchObject({ status: 409, code: 'idempotency_conflict' });
    expect(runs).toBe(1);
  });

  it('answers 400 invalid_json to a body too deep to fingerprint, and runs nothing', async () => {
    runs = 0;
    const { token } = await server().tokenFor('AGENT');
    const deep = `{"x":${'['.repeat(20_000)}1${']'.repeat(20_000)}}`;
    const response = await server().app.inject({
      method: 'POST',
      url: '/test/things',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'idempotency-key': 'deep-1',
      },
      payload: deep,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'invalid_json' });
    expect(runs).toBe(0);
  });

  it('keeps keys per service account, and runs every request without a key', async () => {
    runs = 0;
    const first = await server().tokenFor('AGENT');
    const second = await server().tokenFor('AGENT');
    await create(first.token, { name: 'a' }, 'shared');
    expect((await create(second.token, { name: 'a' }, 'shared')).json().run).toBe(2);
    await create(first.token, { name: 'a' });
    await create(first.token, { name: 'a' });
    expect(runs).toBe(4);
  });

  it('forgets a key after 24 hours', async () => {
    runs = 0;
    const { token } = await server().tokenFor('AGENT');
    await create(token, { name: 'a' }, 'key-1');
    server().clock.advance(24 * 60 * 60 * 1000 - 1);
    expect((await create(token, { name: 'a' }, 'key-1')).headers['idempotent-replayed']).toBe(
      'true',
    );
    server().clock.advance(1);
    const again = await create(token, { name: 'a' }, 'key-1');
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.json().run).toBe(2);
  });

  it('releases the key when the request fails with a server error, so a retry runs', async () => {
    runs = 0;
    const { token } = await server().tokenFor('AGENT');
    behaviour = async () => {
      throw new Error('database down');
    };
    expect((await create(token, { name: 'a' }, 'key-1')).statusCode).toBe(500);
    behaviour = async () => {};
    const retry = await create(token, { name: 'a' }, 'key-1');
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(runs).toBe(2);
  });

  it('answers 409 idempotency_in_progress while the first request still runs', async () => {
    runs = 0;
    const { token } = await server().tokenFor('AGENT');
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered: () => void = () => {};
    const inHandler = new Promise<void>((resolve) => {
      entered = resolve;
    });
    behaviour = () => {
      entered();
      return gate;
    };
    const first = create(token, { name: 'a' }, 'key-1');
    await inHandler;
    const concurrent = await create(token, { name: 'a' }, 'key-1');
    expect(concurrent.statusCode).toBe(409);
    expect(concurrent.headers['retry-after']).toBe('1');
    expect(concurrent.json()).toMatchObject({ code: 'idempotency_in_progress' });
    release();
    expect((await first).statusCode).toBe(201);
    behaviour = async () => {};
    expect((await create(token, { name: 'a' }, 'key-1')).headers['idempotent-replayed']).toBe(
      'true',
    );
    expect(runs).toBe(1);
  });

  it('keeps the reservation while the first request runs, however long: no second create', async () => {
    runs = 0;
    const { token } = await server().tokenFor('AGENT');
    const hold = holdRequests();
    const first = create(token, { name: 'a' }, 'key-1');
    await hold.entered;
    server().clock.advance(10 * 60 * 1000); // ten minutes into the first request
    const concurrent = await create(token, { name: 'a' }, 'key-1');
    expect(concurrent.statusCode).toBe(409);
    expect(concurrent.headers['retry-after']).toBe('1');
    expect(concurrent.json()).toMatchObject({ code: 'idempotency_in_progress' });
    hold.release();
    expect((await first).statusCode).toBe(201);
    behaviour = async () => {};
    const replay = await create(token, { name: 'a' }, 'key-1');
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(runs).toBe(1);
  });

  it('renews the lease of a running request, so another instance does not take it over', async () => {
    runs = 0;
    const { token } = await server().tokenFor('AGENT');
    // A second instance on the same database, whose lease renewal runs on fake interval timers.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const other = buildServer({
      database: server().database,
      clock: server().clock,
      logger: false,
    });
    addTestRoute(other);
    try {
      await other.ready();
      const hold = holdRequests();
      const first = other.inject({
        method: 'POST',
        url: '/test/things',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'idempotency-key': 'key-1',
        },
        payload: '{"name":"a"}',
      });
      await hold.entered;
      server().clock.advance(2 * IDEMPOTENCY_LEASE_MS);
      const renewedUntil = server().clock.now() + IDEMPOTENCY_LEASE_MS;
      vi.advanceTimersByTime(IDEMPOTENCY_LEASE_RENEW_MS);
      for (let tries = 0; tries < 1000; tries++) {
        const { rows } = await server().database.query<{ lease_expires_at: string }>(
          'SELECT lease_expires_at FROM idempotency_keys',
        );
        if (Date.parse(rows[0]?.lease_expires_at ?? '') === renewedUntil) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
      const concurrent = await create(token, { name: 'a' }, 'key-1');
      expect(concurrent.statusCode).toBe(409);
      expect(concurrent.json()).toMatchObject({ code: 'idempotency_in_progress' });
      hold.release();
      expect((await first).statusCode).toBe(201);
      expect(runs).toBe(1);
    } finally {
      await other.close();
      vi.useRealTimers();
    }
  });

  it('gives up a reservation whose lease ran out (its process died)', async () => {
    runs = 0;
    const { token, accountId } = await server().tokenFor('AGENT');
    const now = server().clock.now();
    await server().database.query(
      `INSERT INTO idempotency_keys
         (account_id, key, method, path, request_sha256, created_at, holder, lease_expires_at)
       VALUES ($1, 'key-1', 'POST', '/test/things', '\\x00', $2, 'dead', $3)`,
      [accountId, new Date(now - IDEMPOTENCY_LEASE_MS - 1), new Date(now - 1)],
    );
    const response = await create(token, { name: 'a' }, 'key-1');
    expect(response.statusCode).toBe(201);
    expect(runs).toBe(1);
  });

  it('gives up a reservation whose request never completed, after a minute', async () => {
    runs = 0;
    const { token, accountId } = await server().tokenFor('AGENT');
    await server().database.query(
      `INSERT INTO idempotency_keys (account_id, key, method, path, request_sha256, created_at)
       VALUES ($1, 'key-1', 'POST', '/test/things', '\\x00', $2)`,
      [accountId, new Date(server().clock.now() - 60_000)],
    );
    const response = await create(token, { name: 'a' }, 'key-1');
    expect(response.statusCode).toBe(201);
    expect(runs).toBe(1);
  });

  it('refuses a key that is empty, too long or not visible ASCII', async () => {
    const { token } = await server().tokenFor('AGENT');
    for (const key of ['', 'x'.repeat(256), 'with space', 'caf\u00e9']) {
      const response = await create(token, { name: 'a' }, key);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        code: 'validation_failed',
        errors: [{ path: 'Idempotency-Key', message: expect.any(String) }],
      });
    }
  });

  it('authenticates before it looks at the key', async () => {
    const response = await server().app.inject({
      method: 'POST',
      url: '/test/things',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'key-1' },
      payload: '{}',
    });
    expect(response.statusCode).toBe(401);
  });
});

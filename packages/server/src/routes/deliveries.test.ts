import { deliveryDetailSchema } from '@followup/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { recordTwoAttempts } from '../../test/support/delivery-attempts.js';
import { useTestServer } from '../../test/support/server.js';
import { startSubscriber } from '../../test/support/subscriber.js';
import { createDeliveryWorker } from '../delivery/delivery-worker.js';
import { fanOutEvents } from '../delivery/fan-out.js';
import { createEndpointStore } from '../delivery/webhook-endpoints.js';
import { createIdGenerator } from '../ids.js';
import { recordOutboxEvent } from '../stores/outbox-store.js';
import { roles } from '../tokens/role.js';

describe('GET /api/deliveries/:id/attempts', () => {
  const server = useTestServer();

  async function aDeliveryWithAnAttempt() {
    const { database, clock } = server();
    const newId = createIdGenerator({ now: () => clock.now() });
    await createEndpointStore({ database, clock, newId }).add({
      url: 'https://hooks.example.com/',
    });
    await recordOutboxEvent(
      database,
      { event: 'contact.created', data: { id: 'con_1', firstName: 'Ada', lastName: 'L' } },
      { clock, newId },
    );
    await fanOutEvents(database, { clock, newId });
    const id = await recordTwoAttempts(database);
    return id;
  }

  it('lists every attempt, oldest first, with the start of each answer', async () => {
    const id = await aDeliveryWithAnAttempt();
    const { token } = await server().tokenFor('ADMIN');
    const response = await server().app.inject({
      method: 'GET',
      url: `/api/deliveries/${id}/attempts`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      attempts: [
        {
          startedAt: '2026-03-01T09:00:00.000Z',
          durationMs: 41,
          status: 503,
          error: null,
          responseBody: 'busy, try later',
        },
        {
          startedAt: '2026-03-01T09:01:00.000Z',
          durationMs: 15000,
          status: null,
          error: 'timeout',
          responseBody: null,
        },
      ],
    });
  });

  it.each(roles)('answers %s as its role allows (ADMIN only)', async (role) => {
    const id = await aDeliveryWithAnAttempt();
    const { token } = await server().tokenFor(role);
    const response = await server().app.inject({
      method: 'GET',
      url: `/api/deliveries/${id}/attempts`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.statusCode).toBe(role === 'ADMIN' ? 200 : 403);
  });

  it('answers 404 for an unknown delivery', async () => {
    const { token } = await server().tokenFor('ADMIN');
    const response = await server().app.inject({
      method: 'GET',
      url: '/api/deliveries/dlv_missing/attempts',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'not_found' });
  });
});

describe('the deliveries API', () => {
  const server = useTestServer();
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  async function call(
    method: 'GET' | 'POST',
    url: string,
    payload?: Record<string, unknown>,
    role: (typeof roles)[number] = 'ADMIN',
  ) {
    const { token } = await server().tokenFor(role);
    return server().app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload === undefined ? {} : { payload }),
    });
  }

  function ids() {
    const { clock } = server();
    return createIdGenerator({ now: () => clock.now() });
  }

  /** An endpoint on a loopback subscriber, and a worker that may post to it. */
  async function subscribed(answers: { status: number }[] = [{ status: 200 }]) {
    const { database, clock } = server();
    const newId = ids();
    const hook = await startSubscriber(answers);
    closers.push(() => hook.close());
    const endpoint = await createEndpointStore({ database, clock, newId }).add({ url: hook.url });
    const worker = createDeliveryWorker({
      database,
      clock,
      newId,
      allowPrivate: true,
      retryDelays: [60],
      attemptTimeoutMs: 60_000,
      random: () => 0.5,
    });
    closers.push(() => worker.close());
    return { hook, endpoint, worker };
  }

  async function event(kind: 'contact.created' | 'deal.deleted', id: string) {
    const { database, clock } = server();
    const newId = ids();
    const data =
      kind === 'contact.created'
        ? { id, firstName: 'Ada', lastName: 'Lovelace', lifecycle: 'LEAD' }
        : { id };
    await recordOutboxEvent(database, { event: kind, data }, { clock, newId });
    await fanOutEvents(database, { clock, newId });
  }

  it('shows a delivery with the exact body sent and its headers, signatures redacted', async () => {
    const { hook, worker } = await subscribed([{ status: 500 }]);
    await event('contact.created', 'con_1');
    await worker.runDue();
    expect(hook.received).toHaveLength(1);
    const [sent] = hook.received;
    const list = (await call('GET', '/api/deliveries')).json();
    const id = list.deliveries[0].id;
    const response = await call('GET', `/api/deliveries/${id}`);
    expect(response.statusCode).toBe(200);
    const delivery = response.json();
    expect(delivery.body).toBe(sent?.body);
    expect(delivery).toMatchObject({
      id,
      event: 'contact.created',
      state: 'pending',
      attempts: 1,
      lastStatus: 500,
      nextAttemptAt: '2026-03-01T09:01:00.000Z',
    });
    const received = sent?.headers ?? {};
    expect(delivery.headers).toEqual({
      'X-Service-Event': received['x-service-event'],
      'X-Service-Delivery': received['x-service-delivery'],
      'X-Service-Signature': '[redacted]',
      'webhook-id': received['webhook-id'],
      'webhook-timestamp': received['webhook-timestamp'],
      'webhook-signature': '[redacted]',
      'content-type': 'application/json',
      'user-agent': received['user-agent'],
    });
    expect(response.body).not.toContain(String(received['x-service-signature']));
    expect(deliveryDetailSchema.parse(delivery)).toEqual(delivery);
  });

  it('lists deliveries oldest first in cursor pages, by endpoint, state, kind and time', async () => {
    const { endpoint, worker } = await subscribed([{ status: 200 }]);
    const { database, clock } = server();
    const other = await createEndpointStore({ database, clock, newId: ids() }).add({
      url: 'https://hooks.example.com/',
    });
    await event('contact.created', 'con_1');
    clock.advance(60_000);
    await event('deal.deleted', 'deal_1');
    await worker.runDue();
    clock.advance(60_000);
    await event('contact.created', 'con_2');

    const all = (await call('GET', '/api/deliveries')).json().deliveries;
    expect(all).toHaveLength(6);
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '' : `&cursor=${cursor}`;
      const page = (await call('GET', `/api/deliveries?limit=4${query}`)).json();
      walked.push(...page.deliveries.map((delivery: { id: string }) => delivery.id));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(walked).toEqual(all.map((delivery: { id: string }) => delivery.id));

    const filtered = async (query: string) =>
      (await call('GET', `/api/deliveries?${query}`))
        .json()
        .deliveries.map((delivery: { endpointId: string; event: string; state: string }) => [
          delivery.endpointId === endpoint.id ? 'ours' : 'other',
          delivery.event,
          delivery.state,
        ]);
    expect(await filtered(`endpoint=${endpoint.id}`)).toEqual([
      ['ours', 'contact.created', 'delivered'],
      ['ours', 'deal.deleted', 'delivered'],
      ['ours', 'contact.created', 'pending'],
    ]);
    expect(await filtered(`endpoint=${other.id}&state=delivered`)).toEqual([]);
    expect(await filtered('state=delivered&kind=deal.deleted')).toEqual([
      ['ours', 'deal.deleted', 'delivered'],
    ]);
    expect(
      await filtered('createdAfter=2026-03-01T09:01:00Z&createdBefore=2026-03-01T10:02:00%2B01:00'),
    ).toEqual(
      // One event's two deliveries, in the order of their ids.
      expect.arrayContaining([
        ['ours', 'deal.deleted', 'delivered'],
        ['other', 'deal.deleted', 'pending'],
      ]),
    );
  });

  it.each([
    ['state=sent', 'state'],
    ['kind=contact.exploded', 'kind'],
    ['createdAfter=yesterday', 'createdAfter'],
    ['createdBefore=2026-02-30T00:00:00Z', 'createdBefore'],
    ['cursor=bm90IG91cnM', 'cursor'],
    ['limit=201', 'limit'],
    ['colour=red', 'colour'],
  ])('answers 400 validation_failed naming the parameter for %s', async (query, path) => {
    const response = await call('GET', `/api/deliveries?${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'validation_failed' });
    const paths = response.json().errors.map((error: { path: string }) => error.path);
    expect(paths).toContain(path);
  });

  it('retries a failed delivery now (202), a delivered one only with force (else 409)', async () => {
    const { hook, worker } = await subscribed([{ status: 200 }]);
    await event('contact.created', 'con_1');
    await worker.runDue();
    const [delivered] = (await call('GET', '/api/deliveries')).json().deliveries;
    expect(delivered.state).toBe('delivered');

    const refused = await call('POST', `/api/deliveries/${delivered.id}/retry`);
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'conflict' });
    expect((await call('GET', `/api/deliveries/${delivered.id}`)).json().state).toBe('delivered');

    const forced = await call('POST', `/api/deliveries/${delivered.id}/retry`, { force: true });
    expect(forced.statusCode).toBe(202);
    expect(forced.json()).toMatchObject({
      id: delivered.id,
      state: 'pending',
      nextAttemptAt: '2026-03-01T09:00:00.000Z',
    });
    await worker.runDue();
    expect(hook.received).toHaveLength(2);
    expect(hook.received[1]?.body).toBe(hook.received[0]?.body);

    const { rows } = await server().database.query<{ actor_type: string; metadata: unknown }>(
      "SELECT actor_type, metadata FROM audit_entries WHERE action = 'delivery.retried'",
    );
    expect(rows).toEqual([
      {
        actor_type: 'service_account',
        metadata: expect.objectContaining({ previousState: 'delivered' }),
      },
    ]);
    expect((await call('POST', '/api/deliveries/dlv_none/retry')).statusCode).toBe(404);
    expect((await call('GET', '/api/deliveries/dlv_none')).statusCode).toBe(404);
    const wrong = await call('POST', `/api/deliveries/${delivered.id}/retry`, { force: 'yes' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().errors[0].path).toBe('force');
  });

  it.each(roles.filter((role) => role !== 'ADMIN'))(
    'answers %s 403 forbidden on every deliveries route, retrying nothing',
    async (role) => {
      await subscribed();
      await event('contact.created', 'con_1');
      const [delivery] = (await call('GET', '/api/deliveries')).json().deliveries;
      for (const [method, url] of [
        ['GET', '/api/deliveries'],
        ['GET', `/api/deliveries/${delivery.id}`],
        ['POST', `/api/deliveries/${delivery.id}/retry`],
      ] as const) {
        const response = await call(method, url, undefined, role);
        expect(response.statusCode, url).toBe(403);
      }
      const { rows } = await server().database.query(
        "SELECT id FROM audit_entries WHERE action = 'delivery.retried'",
      );
      expect(rows).toEqual([]);
    },
  );
});

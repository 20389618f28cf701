import { ENDPOINT_EVENT_KINDS, knownWebhookEventSchema } from '@followup/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { transactionsSettled } from '../../test/support/database.js';
import { useTestServer } from '../../test/support/server.js';
import { type Subscriber, startSubscriber } from '../../test/support/subscriber.js';
import { createIdGenerator } from '../ids.js';
import { recordOutboxEvent } from '../stores/outbox-store.js';
import type { Role } from '../tokens/role.js';
import { createDeliveryWorker } from './delivery-worker.js';
import type { DeliveryWorkerOptions } from './delivery-worker-options.js';
import { createEndpointStore } from './webhook-endpoints.js';

describe('operational endpoint.* events', () => {
  let wakeUps = 0;
  const server = useTestServer({
    onOutboxEvent: () => {
      wakeUps += 1;
    },
  });
  const subscribers: Subscriber[] = [];
  const closers: (() => Promise<void>)[] = [];

  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    for (const subscriber of subscribers.splice(0)) await subscriber.close();
    wakeUps = 0;
  });

  const newId = () => createIdGenerator({ now: () => server().clock.now() });

  async function subscriber(...args: Parameters<typeof startSubscriber>) {
    const started = await startSubscriber(...args);
    subscribers.push(started);
    return started;
  }

  function worker(options: Partial<DeliveryWorkerOptions> = {}) {
    const created = createDeliveryWorker({
      database: server().database,
      clock: server().clock,
      newId: newId(),
      allowPrivate: true,
      retryDelays: [60, 60, 60],
      // A guard against a hung test, far above any answered attempt even on a loaded machine.
      attemptTimeoutMs: 60_000,
      random: () => 0.5,
      ...options,
    });
    closers.push(() => created.close());
    return created;
  }

  const endpoints = () =>
    createEndpointStore({ database: server().database, clock: server().clock, newId: newId() });

  async function contactCreated() {
    const id = newId();
    return recordOutboxEvent(
      server().database,
      { event: 'contact.created', data: { id: id('con'), firstName: 'Ada', lastName: 'L' } },
      { clock: server().clock, newId: id },
    );
  }

  // The bodies a subscriber received, parsed, of the operational kinds only.
  function operational(hook: Subscriber) {
    return hook.received
      .map((request) => JSON.parse(request.body))
      .filter((body) => (ENDPOINT_EVENT_KINDS as readonly string[]).includes(body.event));
  }

  async function feed(kinds: readonly string[] = ENDPOINT_EVENT_KINDS, role: Role = 'ADMIN') {
    const { token } = await server().tokenFor(role);
    return server().app.inject({
      method: 'GET',
      url: `/api/events?${kinds.map((kind) => `kind=${kind}`).join('&')}`,
      headers: { authorization: `Bearer ${token}` },
    });
  }

  async function feedEvents(kinds: readonly string[] = ENDPOINT_EVENT_KINDS) {
    // The feed shows an event once every transaction that began before it ended.
    await transactionsSettled(server().database);
    const response = await feed(kinds);
    expect(response.statusCode, response.body).toBe(200);
    return response.json().events as { id: string; event: string; data: unknown }[];
  }

  // The kinds of the events written, in order, dispatched or not.
  async function written() {
    const { rows } = await server().database.query<{ event: string }>(
      'SELECT event FROM outbox_events ORDER BY seq',
    );
    return rows.map((row) => row.event);
  }

  it('announces one endpoint.failing and one endpoint.recovered per streak, to a watcher, never to the endpoint itself', async () => {
    // Three deliveries fail at once, then every later attempt succeeds.
    const failing = await subscriber([
      { status: 500 },
      { status: 500 },
      { status: 500 },
      { status: 200 },
    ]);
    const flaky = await endpoints().add({
      url: failing.url,
      events: ['contact.created', ...ENDPOINT_EVENT_KINDS],
      subscriber: 'acme',
    });
    const watching = await subscriber();
    await endpoints().add({ url: watching.url, events: [...ENDPOINT_EVENT_KINDS] });
    // `*` does not include the operational kinds; another subscriber never hears of acme's.
    const everything = await subscriber();
    await endpoints().add({ url: everything.url, events: ['*'] });
    const other = await subscriber();
    await endpoints().add({
      url: other.url,
      events: [...ENDPOINT_EVENT_KINDS],
      subscriber: 'zeta',
    });
    const failedAt = new Date(server().clock.now()).toISOString();
    for (let count = 0; count < 3; count += 1) await contactCreated();

    // Two workers (two instances) share the attempts and record them at once.
    const workers = [worker(), worker()];
    const runDue = () => Promise.all(workers.map((running) => running.runDue()));
    await runDue();
    expect(failing.received).toHaveLength(3);
    server().clock.advance(60_000);
    await runDue();
    expect(failing.received).toHaveLength(6);

    const seen = operational(watching);
    expect(seen.map((body) => body.event)).toEqual(['endpoint.failing', 'endpoint.recovered']);
    const status = { id: flaky.id, url: failing.url, subscriber: 'acme', reason: null };
    expect(seen[0]).toMatchObject({
      event: 'endpoint.failing',
      data: { ...status, state: 'failing', failingSince: failedAt },
    });
    expect(seen[1]).toMatchObject({
      event: 'endpoint.recovered',
      data: { ...status, state: 'active', failingSince: failedAt },
    });
    for (const body of seen) expect(knownWebhookEventSchema.parse(body)).toEqual(body);
    expect(operational(failing)).toEqual([]);
    expect(operational(everything)).toEqual([]);
    expect(operational(other)).toEqual([]);
    // In the feed too, once each, with the ids the watcher's deliveries carried.
    const events = await feedEvents();
    expect(events.map((event) => event.event)).toEqual(['endpoint.failing', 'endpoint.recovered']);
    expect(events.map((event) => event.id)).toEqual(seen.map((body) => body.eventId));
  });

  it('announces endpoint.disabled (reason manual) and endpoint.enabled for PATCH, once per change', async () => {
    const watching = await subscriber();
    await endpoints().add({ url: watching.url, events: ['endpoint.disabled', 'endpoint.enabled'] });
    const { token } = await server().tokenFor('ADMIN');
    const created = await server().app.inject({
      method: 'POST',
      url: '/api/webhook-endpoints',
      headers: { authorization: `Bearer ${token}` },
      payload: {
        url: 'https://hooks.example.com/followup',
        subscriber: 'acme',
        headers: { 'X-Api-Key': 'key-that-must-not-leak' },
      },
    });
    const { id, secret } = created.json();
    async function patch(state: 'active' | 'disabled') {
      const response = await server().app.inject({
        method: 'PATCH',
        url: `/api/webhook-endpoints/${id}`,
        headers: { authorization: `Bearer ${token}` },
        payload: { state },
      });
      expect(response.statusCode, response.body).toBe(200);
    }
    await patch('disabled');
    expect(wakeUps).toBe(1);
    await patch('disabled'); // no change: audited, not announced
    await patch('active');
    await patch('active');
    expect(wakeUps).toBe(2);

    const status = { id, url: 'https://hooks.example.com/followup', subscriber: 'acme' };
    const events = await feedEvents();
    expect(events).toMatchObject([
      {
        event: 'endpoint.disabled',
        data: { ...status, state: 'disabled', reason: 'manual', failingSince: null },
      },
      { event: 'endpoint.enabled', data: { ...status, state: 'active', reason: null } },
    ]);
    const text = JSON.stringify(events);
    expect(text).not.toContain(secret);
    expect(text).not.toContain('key-that-must-not-leak');
    // The operators' events: not in the feed of a role without webhooks.manage.
    const refused = await feed(ENDPOINT_EVENT_KINDS, 'AGENT');
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'forbidden' });

    await worker().runDue();
    expect(operational(watching).map((body) => body.event)).toEqual([
      'endpoint.disabled',
      'endpoint.enabled',
    ]);
  });

  it('announces the automatic disable of an endpoint answering 410, with its reason', async () => {
    const gone = await subscriber([{ status: 410 }]);
    const endpoint = await endpoints().add({ url: gone.url });
    const watching = await subscriber();
    await endpoints().add({ url: watching.url, events: ['endpoint.disabled'] });
    await contactCreated();
    const running = worker();
    await running.runDue();
    expect(gone.received).toHaveLength(1);
    const failingSince = new Date(server().clock.now()).toISOString();
    expect(await written()).toEqual(['contact.created', 'endpoint.failing', 'endpoint.disabled']);
    expect(operational(watching)).toMatchObject([
      {
        event: 'endpoint.disabled',
        data: { id: endpoint.id, state: 'disabled', reason: 'gone', failingSince },
      },
    ]);
  });

  it('announces the disable after the auto-disable period of failures, once', async () => {
    const down = await subscriber([{ status: 503 }]);
    const endpoint = await endpoints().add({ url: down.url });
    const watching = await subscriber();
    await endpoints().add({ url: watching.url, events: [...ENDPOINT_EVENT_KINDS] });
    const running = worker({ autoDisableAfterMs: 120_000 });
    const failingSince = new Date(server().clock.now()).toISOString();
    for (let count = 0; count < 2; count += 1) await contactCreated();
    await running.runDue();
    for (let round = 0; round < 3; round += 1) {
      server().clock.advance(60_000);
      await running.runDue();
    }
    expect((await endpoints().get(endpoint.id))?.state).toBe('disabled');
    expect((await written()).filter((kind) => kind.startsWith('endpoint.'))).toEqual([
      'endpoint.failing',
      'endpoint.disabled',
    ]);
    expect(operational(watching)).toMatchObject([
      { event: 'endpoint.failing', data: { id: endpoint.id, failingSince } },
      { event: 'endpoint.disabled', data: { id: endpoint.id, reason: 'failing', failingSince } },
    ]);
  });
});

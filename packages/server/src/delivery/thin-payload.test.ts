import { thinWebhookEventSchema } from '@followup/sdk';
import { verifySignature } from '@followup/webhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/support/server.js';
import { type Subscriber, startSubscriber } from '../../test/support/subscriber.js';
import { createIdGenerator } from '../ids.js';
import { recordOutboxEvent } from '../stores/outbox-store.js';
import { createDeliveryWorker } from './delivery-worker.js';
import { fanOutEvents } from './fan-out.js';
import { createEndpointStore } from './webhook-endpoints.js';

// An endpoint whose payload is thin, on both databases: what it receives, what the API shows it
// was sent, and which body a delivery keeps when the endpoint's setting changes.

const patient = {
  id: 'con_1',
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.org',
  lifecycle: 'LEAD',
};

describe('thin payloads', () => {
  const server = useTestServer();
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  function ids() {
    const { clock } = server();
    return createIdGenerator({ now: () => clock.now() });
  }

  async function call(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) {
    const { token } = await server().tokenFor('ADMIN');
    return server().app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload === undefined ? {} : { payload }),
    });
  }

  /** An endpoint on a loopback subscriber that answers 200. */
  async function endpointOn(payload: 'full' | 'thin') {
    const { database, clock } = server();
    const hook = await startSubscriber([{ status: 200 }]);
    closers.push(() => hook.close());
    const endpoint = await createEndpointStore({ database, clock, newId: ids() }).add({
      url: hook.url,
      payload,
    });
    return { hook, endpoint };
  }

  function worker() {
    const { database, clock } = server();
    const started = createDeliveryWorker({
      database,
      clock,
      newId: ids(),
      allowPrivate: true,
      retryDelays: [60],
      attemptTimeoutMs: 60_000,
      random: () => 0.5,
    });
    closers.push(() => started.close());
    return started;
  }

  async function contactCreated() {
    const { database, clock } = server();
    const newId = ids();
    const event = await recordOutboxEvent(
      database,
      { event: 'contact.created', data: patient },
      { clock, newId },
    );
    await fanOutEvents(database, { clock, newId });
    return event;
  }

  function only(hook: Subscriber) {
    expect(hook.received).toHaveLength(1);
    return hook.received[0] as (typeof hook.received)[number];
  }

  it('sends a thin endpoint ids only, signed, beside a full endpoint that gets the event', async () => {
    const thin = await endpointOn('thin');
    const full = await endpointOn('full');
    const event = await contactCreated();
    await worker().runDue();

    const thinSent = only(thin.hook);
    const deliveryId = String(thinSent.headers['x-service-delivery']);
    // Exactly these fields, in this order, and no value of the contact's fields.
    expect(thinSent.body).toBe(
      JSON.stringify({
        id: deliveryId,
        event: 'contact.created',
        createdAt: event.createdAt,
        eventId: event.id,
        data: { id: 'con_1', object: 'contact' },
      }),
    );
    for (const value of ['Ada', 'Lovelace', 'ada@example.org', 'LEAD']) {
      expect(thinSent.body).not.toContain(value);
    }
    expect(thinWebhookEventSchema.parse(JSON.parse(thinSent.body))).toBeDefined();
    // The signature covers the thin bytes.
    expect(() =>
      verifySignature(thinSent.body, String(thinSent.headers['x-service-signature']), {
        secret: thin.endpoint.secret,
        now: new Date(server().clock.now()),
      }),
    ).not.toThrow();

    const fullSent = only(full.hook);
    expect(JSON.parse(fullSent.body)).toMatchObject({ eventId: event.id, data: patient });

    // The API shows each delivery's own bytes.
    const shown = (await call('GET', `/api/deliveries/${deliveryId}`)).json();
    expect(shown.body).toBe(thinSent.body);
    const fullShown = (
      await call('GET', `/api/deliveries/${String(fullSent.headers['x-service-delivery'])}`)
    ).json();
    expect(fullShown.body).toBe(fullSent.body);
  });

  it('keeps the body decided when a delivery was queued, whatever the endpoint says later', async () => {
    const { hook, endpoint } = await endpointOn('full');
    await contactCreated();
    // Queued full; the endpoint turns thin before the attempt.
    const switched = await call('PATCH', `/api/webhook-endpoints/${endpoint.id}`, {
      payload: 'thin',
    });
    expect(switched.statusCode).toBe(200);
    await worker().runDue();
    const sent = only(hook);
    expect(JSON.parse(sent.body)).toMatchObject({ data: patient });
    const shown = (
      await call('GET', `/api/deliveries/${String(sent.headers['x-service-delivery'])}`)
    ).json();
    expect(shown.body).toBe(sent.body);
  });

  it('sends test deliveries and replays with the endpoint setting at the time they are queued', async () => {
    const { hook, endpoint } = await endpointOn('full');
    const run = worker();
    const event = await contactCreated();
    await run.runDue();
    expect(JSON.parse(only(hook).body)).toMatchObject({ data: patient });

    await call('PATCH', `/api/webhook-endpoints/${endpoint.id}`, { payload: 'thin' });
    const replay = await call('POST', `/api/webhook-endpoints/${endpoint.id}/replay`, {
      since: '2026-03-01T08:00:00.000Z',
      states: ['delivered'],
    });
    expect(replay.json()).toMatchObject({ count: 1 });
    const test = await call('POST', `/api/webhook-endpoints/${endpoint.id}/test`);
    expect(test.statusCode).toBe(202);
    await run.runDue();
    const [replayed, tested] = hook.received.slice(1).map((sent) => JSON.parse(sent.body));
    expect(hook.received).toHaveLength(3);
    expect(replayed).toEqual({
      id: expect.stringMatching(/^dlv_/),
      event: 'contact.created',
      createdAt: event.createdAt,
      eventId: event.id,
      data: { id: 'con_1', object: 'contact' },
    });
    expect(tested).toEqual({
      id: test.json().deliveryId,
      event: 'webhook.test',
      createdAt: expect.any(String),
      eventId: expect.stringMatching(/^evt_/),
      data: { id: endpoint.id, object: 'webhook_endpoint' },
    });
  });
});

import { verifySignature } from '@followup/webhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { type Subscriber, startSubscriber } from '../../test/support/subscriber.js';
import { createIdGenerator } from '../ids.js';
import { recordOutboxEvent } from '../stores/outbox-store.js';
import { createDeliveryStore } from './deliveries.js';
import { createDeliveryWorker } from './delivery-worker.js';
import type { DeliveryWorkerOptions } from './delivery-worker-options.js';
import type { AttemptTimer } from './post-delivery.js';
import { sendTestEvent } from './test-event.js';
import { createEndpointStore } from './webhook-endpoints.js';
import { replayEvents } from './webhook-replay.js';

// An endpoint's sending policy as the worker applies it: its `timeoutSeconds` and its static
// `headers` (its `rateLimit` is in delivery-rate-limit.test.ts).

describe("the worker applies an endpoint's policy", () => {
  const database = useTestDatabase();
  const clock = manualClock();
  const newId = createIdGenerator({ now: () => clock.now() });
  const subscribers: Subscriber[] = [];
  const closers: (() => Promise<void>)[] = [];

  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    for (const subscriber of subscribers.splice(0)) await subscriber.close();
    clock.set('2026-03-01T09:00:00.000Z');
  });

  async function subscriber(...args: Parameters<typeof startSubscriber>) {
    const started = await startSubscriber(...args);
    subscribers.push(started);
    return started;
  }

  function worker(options: Partial<DeliveryWorkerOptions> = {}) {
    const created = createDeliveryWorker({
      database: database(),
      clock,
      newId,
      allowPrivate: true,
      retryDelays: [0.05, 0.05],
      random: () => 0.5,
      ...options,
    });
    closers.push(() => created.close());
    return created;
  }

  /**
   * Attempt timers on the test's clock: each is due its milliseconds after it was started, and
   * fires when `advance` moves the clock to it; no real time passes.
   */
  function virtualTimers() {
    const pending = new Set<{ dueAt: number; milliseconds: number; fire: () => void }>();
    const timer: AttemptTimer = (milliseconds, onTimeout) => {
      const entry = { dueAt: clock.now() + milliseconds, milliseconds, fire: onTimeout };
      pending.add(entry);
      return () => pending.delete(entry);
    };
    return {
      timer,
      pending: () => [...pending].map((entry) => entry.milliseconds).sort((a, b) => a - b),
      advance(milliseconds: number) {
        clock.advance(milliseconds);
        for (const entry of [...pending]) {
          if (entry.dueAt > clock.now()) continue;
          pending.delete(entry);
          entry.fire();
        }
      },
    };
  }

  const endpoints = () => createEndpointStore({ database: database(), clock, newId });
  const deliveries = () => createDeliveryStore({ database: database(), clock });

  async function contactCreated(firstName = 'Ada') {
    return recordOutboxEvent(
      database(),
      {
        event: 'contact.created',
        data: { id: newId('con'), firstName, lastName: 'Lovelace', lifecycle: 'LEAD' },
      },
      { clock, newId },
    );
  }

  async function deliveryTo(endpointId: string) {
    const list = await deliveries().list();
    return list.find((delivery) => delivery.endpointId === endpointId);
  }

  it("ends each attempt after its endpoint's timeoutSeconds, as a timeout, and no sooner", async () => {
    const quick = await subscriber(['hang']);
    const patient = await subscriber(['hang']);
    const short = await endpoints().add({ url: quick.url, timeoutSeconds: 3 });
    const standard = await endpoints().add({ url: patient.url });
    await contactCreated();
    const timers = virtualTimers();
    // Retries an hour on, so that none falls due while the clock moves.
    const running = worker({ attemptTimer: timers.timer, retryDelays: [3_600] });

    const ran = running.runDue();
    await Promise.all([quick.waitFor(1), patient.waitFor(1)]);
    expect(timers.pending()).toEqual([3_000, 15_000]);

    timers.advance(2_999);
    expect(timers.pending()).toEqual([3_000, 15_000]);
    timers.advance(1);
    // The 3 s endpoint's attempt ends; the other one (15 s, the default) is still in flight.
    await expect.poll(async () => (await deliveryTo(short.id))?.attempts).toBe(1);
    expect(await deliveryTo(short.id)).toMatchObject({ state: 'pending', lastError: 'timeout' });
    expect(await deliveryTo(standard.id)).toMatchObject({ state: 'pending', attempts: 0 });

    timers.advance(12_000);
    await ran;
    expect(await deliveryTo(standard.id)).toMatchObject({
      state: 'pending',
      attempts: 1,
      lastError: 'timeout',
    });
  });

  it("keeps to the worker's --delivery-timeout when it is shorter than the endpoint's", async () => {
    const hook = await subscriber(['hang']);
    await endpoints().add({ url: hook.url, timeoutSeconds: 30 });
    await contactCreated();
    const timers = virtualTimers();
    const ran = worker({
      attemptTimer: timers.timer,
      attemptTimeoutMs: 2_000,
      retryDelays: [3_600],
    }).runDue();
    await hook.waitFor(1);
    expect(timers.pending()).toEqual([2_000]);
    timers.advance(2_000);
    await ran;
    expect(await deliveries().list()).toMatchObject([
      { state: 'pending', attempts: 1, lastError: 'timeout' },
    ]);
  });

  it('sends the static headers with every delivery: events, test deliveries and replays', async () => {
    const hook = await subscriber();
    const endpoint = await endpoints().add({
      url: hook.url,
      headers: { 'X-Tenant': 'north', Authorization: 'Bearer static-key-0123' },
    });
    await contactCreated();
    const running = worker();
    await running.runDue();
    await sendTestEvent(database(), { endpointId: endpoint.id, clock, newId });
    await running.runDue();
    clock.advance(1_000);
    await replayEvents(database(), {
      replay: {
        endpointId: endpoint.id,
        since: new Date(clock.now() - 3_600_000),
        kinds: ['contact.created'],
        states: ['delivered'],
      },
      clock,
      newId,
      actor: { type: 'operator' },
    });
    await running.runDue();

    expect(hook.received.map((request) => request.headers['x-service-event'])).toEqual([
      'contact.created',
      'webhook.test',
      'contact.created',
    ]);
    for (const request of hook.received) {
      expect(request.headers['x-tenant']).toBe('north');
      expect(request.headers.authorization).toBe('Bearer static-key-0123');
    }
  });

  it('never lets a static header replace a signature, an id, the event or the body type', async () => {
    const hook = await subscriber();
    const endpoint = await endpoints().add({ url: hook.url });
    // Written past the API, which refuses these names: the worker does not trust the row.
    await database().query('UPDATE webhook_endpoints SET headers = $2 WHERE id = $1', [
      endpoint.id,
      JSON.stringify({
        'x-service-signature': 't=1,v1=forged',
        'X-SERVICE-DELIVERY': 'dlv_forged',
        'x-service-event': 'contact.deleted',
        'Webhook-Signature': 'v1,forged',
        'webhook-id': 'msg_forged',
        'Content-Type': 'text/plain',
        'User-Agent': 'forged',
        'X-Injected': 'a\r\nX-Smuggled: 1',
        'X-Tenant': 'north',
      }),
    ]);
    await contactCreated();
    const errors: unknown[] = [];
    await worker({ onError: (error) => errors.push(error) }).runDue();

    expect(hook.received).toHaveLength(1);
    const [request] = hook.received;
    const [delivery] = await deliveries().list();
    expect(delivery).toMatchObject({ state: 'delivered' });
    expect(request?.headers).toMatchObject({
      'x-service-delivery': delivery?.id,
      'x-service-event': 'contact.created',
      'webhook-id': delivery?.id,
      'content-type': 'application/json',
      'user-agent': 'FollowUp-Webhooks/1',
      'x-tenant': 'north',
    });
    expect(request?.headers).not.toHaveProperty('x-injected');
    expect(request?.headers).not.toHaveProperty('x-smuggled');
    expect(request?.headers['webhook-signature']).not.toContain('forged');
    expect(
      verifySignature(request?.body ?? '', request?.headers['x-service-signature'] as string, {
        secret: endpoint.secret,
        now: new Date(clock.now()),
      }),
    ).toMatchObject({ secretIndex: 0 });
    expect(errors).toEqual([]);
  });

  it("never puts a static header's value in what the worker reports or records", async () => {
    // One endpoint answers, one refuses the connection: both paths report and record.
    const answering = await subscriber([{ status: 500 }]);
    const gone = await subscriber();
    await gone.stop();
    const secretValue = 'static-secret-value-7f3a';
    for (const url of [answering.url, gone.url]) {
      await endpoints().add({ url, headers: { 'X-Api-Key': secretValue } });
    }
    await contactCreated();
    const told: unknown[] = [];
    await worker({
      onError: (error) => told.push(error),
      onAttempt: (attempt) => told.push(attempt),
    }).runDue();

    expect(answering.received[0]?.headers['x-api-key']).toBe(secretValue);
    const { rows } = await database().query(
      'SELECT d.*, a.* FROM deliveries AS d JOIN delivery_attempts AS a ON a.delivery_id = d.id',
    );
    expect(rows).toHaveLength(2);
    const reported = JSON.stringify([told, rows, await deliveries().list()], (_, value) =>
      value instanceof Error ? `${value.message} ${value.stack}` : value,
    );
    expect(reported).not.toContain(secretValue);
  });
});

import { verifySignature } from '@followup/webhooks';
import Stripe from 'stripe';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { type Subscriber, startSubscriber } from '../../test/support/subscriber.js';
import { buildServer } from '../build-server.js';
import { createIdGenerator } from '../ids.js';
import type { Database, QueryResult } from '../storage/database.js';
import { TAKE_UNDISPATCHED_EVENTS } from '../stores/fan-out-store.js';
import { recordOutboxEvent } from '../stores/outbox-store.js';
import { createAccountStore } from '../tokens/account-store.js';
import { createDeliveryStore } from './deliveries.js';
import { createDeliveryWorker } from './delivery-worker.js';
import type { DeliveryWorkerOptions } from './delivery-worker-options.js';
import { createEndpointStore } from './webhook-endpoints.js';

// Stripe's helpers (the `stripe` package, a dev dependency only); no request is made.
const stripe = new Stripe('sk_test_compatibility_only');

describe('the delivery worker', () => {
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
      // A guard against a hung test, far above any answered attempt even on a loaded machine.
      attemptTimeoutMs: 60_000,
      random: () => 0.5,
      ...options,
    });
    closers.push(() => created.close());
    return created;
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

  async function attempts(deliveryId: string) {
    const { rows } = await database().query<{ status: number | null; error: string | null }>(
      'SELECT status, error FROM delivery_attempts WHERE delivery_id = $1 ORDER BY seq',
      [deliveryId],
    );
    return rows;
  }

  // Moves the clock past the next retry (0.05 s ± 20 %) and runs what is due.
  async function nextRound(running: ReturnType<typeof worker>) {
    clock.advance(100);
    await running.runDue();
  }

  it('retries 500 twice, then delivers once: three signed attempts with the same id', async () => {
    const hook = await subscriber([{ status: 500 }, { status: 500 }, { status: 200 }]);
    const endpoint = await endpoints().add({ url: hook.url });
    const event = await contactCreated();
    const running = worker();

    await running.runDue();
    expect(hook.received).toHaveLength(1);
    const [pending] = await deliveries().list();
    expect(pending).toMatchObject({ state: 'pending', attempts: 1, lastStatus: 500 });

    await nextRound(running);
    await nextRound(running);
    await nextRound(running);

    expect(hook.received).toHaveLength(3);
    const [delivery] = await deliveries().list();
    expect(delivery).toMatchObject({
      id: expect.stringMatching(/^dlv_/),
      state: 'delivered',
      attempts: 3,
      lastStatus: 200,
      eventId: event.id,
      endpointId: endpoint.id,
    });
    for (const request of hook.received) {
      expect(request.headers['x-service-delivery']).toBe(delivery?.id);
      expect(request.headers['x-service-event']).toBe('contact.created');
      expect(request.headers['content-type']).toBe('application/json');
      const body = JSON.parse(request.body);
      expect(body).toEqual({
        id: delivery?.id,
        event: 'contact.created',
        eventId: event.id,
        createdAt: event.createdAt,
        data: event.data,
      });
      const header = request.headers['x-service-signature'] as string;
      expect(
        verifySignature(request.body, header, {
          secret: endpoint.secret,
          now: new Date(clock.now()),
        }),
      ).toMatchObject({ secretIndex: 0 });
      expect(() =>
        verifySignature(request.body, header, {
          secret: 'whsec_not-the-secret',
          now: new Date(clock.now()),
        }),
      ).toThrow();
      // Stripe's own verifier accepts it too (its clock is the real one, hence the tolerance).
      expect(
        stripe.webhooks.constructEvent(request.body, header, endpoint.secret, 10 ** 10),
      ).toEqual(body);
      expect(() =>
        stripe.webhooks.constructEvent(request.body, header, 'whsec_not-the-secret', 10 ** 10),
      ).toThrow();
    }
    expect(await attempts(delivery?.id as string)).toEqual([
      { status: 500, error: null },
      { status: 500, error: null },
      { status: 200, error: null },
    ]);
    // Nothing more to do: a delivered delivery is never sent again.
    await nextRound(running);
    expect(hook.received).toHaveLength(3);
  });

  it('makes one delivery per event and subscribed, active endpoint', async () => {
    const first = await subscriber();
    const second = await subscriber();
    const third = await subscriber();
    await endpoints().add({ url: first.url });
    await endpoints().add({ url: second.url, events: ['contact.created'] });
    const disabled = await endpoints().add({ url: third.url });
    await endpoints().disable(disabled.id);
    await contactCreated('Ada');
    await contactCreated('Grace');
    await worker().runDue();
    expect(first.received.map((request) => JSON.parse(request.body).data.firstName)).toEqual([
      'Ada',
      'Grace',
    ]);
    expect(second.received).toHaveLength(2);
    expect(third.received).toHaveLength(0);
    const ids = first.received.map((request) => request.headers['x-service-delivery']);
    expect(
      new Set([...ids, ...second.received.map((r) => r.headers['x-service-delivery'])]).size,
    ).toBe(4);
  });

  it('retries a subscriber that hangs past the timeout, then delivers', async () => {
    const hook = await subscriber(['hang', { status: 204 }]);
    await endpoints().add({ url: hook.url });
    await contactCreated();
    // The hanging attempt is cut at 200 ms; the answered one gets the patient worker's 60 s, so
    // that a slow machine cannot turn the answer into a second timeout.
    const impatient = worker({ attemptTimeoutMs: 200 });
    await impatient.runDue();
    const [failed] = await deliveries().list();
    expect(failed).toMatchObject({ state: 'pending', attempts: 1, lastError: 'timeout' });
    await nextRound(worker());
    expect(hook.received).toHaveLength(2);
    const [delivered] = await deliveries().list();
    expect(delivered).toMatchObject({ state: 'delivered', attempts: 2, lastStatus: 204 });
  });

  it('retries a subscriber that closes the connection, then delivers', async () => {
    const hook = await subscriber(['close', { status: 200 }]);
    await endpoints().add({ url: hook.url });
    await contactCreated();
    const running = worker();
    await running.runDue();
    const [failed] = await deliveries().list();
    expect(failed).toMatchObject({ state: 'pending', attempts: 1, lastStatus: null });
    expect(failed?.lastError).toMatch(/^[A-Za-z0-9_]+$/);
    await nextRound(running);
    expect(await deliveries().list()).toMatchObject([{ state: 'delivered', attempts: 2 }]);
  });

  it('retries a subscriber that is not listening, and delivers when it comes back', async () => {
    const hook = await subscriber();
    await hook.stop();
    await endpoints().add({ url: hook.url });
    await contactCreated();
    const running = worker();
    await running.runDue();
    expect(await deliveries().list()).toMatchObject([
      { state: 'pending', attempts: 1, lastError: 'ECONNREFUSED' },
    ]);
    await hook.listen();
    await nextRound(running);
    expect(hook.received).toHaveLength(1);
    expect(await deliveries().list()).toMatchObject([{ state: 'delivered', attempts: 2 }]);
  });

  it('marks the delivery dead after the last attempt, and an operator retry sends it again', async () => {
    const hook = await subscriber([{ status: 503 }]);
    await endpoints().add({ url: hook.url });
    await contactCreated();
    const running = worker();
    await running.runDue();
    await nextRound(running);
    await nextRound(running);
    const [dead] = await deliveries().list({ state: 'dead' });
    expect(dead).toMatchObject({ attempts: 3, lastStatus: 503, nextAttemptAt: null });
    await nextRound(running);
    expect(hook.received).toHaveLength(3);

    await deliveries().retry(dead?.id as string);
    await running.runDue();
    expect(hook.received).toHaveLength(4);
    expect(hook.received.at(-1)?.headers['x-service-delivery']).toBe(dead?.id);
    expect(await deliveries().list()).toMatchObject([{ state: 'dead', attempts: 4 }]);
  });

  it('signs with both secrets during a rotation overlap, and with the new one after it', async () => {
    const hook = await subscriber();
    const endpoint = await endpoints().add({ url: hook.url });
    const rotated = await endpoints().rotateSecret(endpoint.id, 60);
    expect(rotated.secret).not.toBe(endpoint.secret);
    await contactCreated();
    const running = worker();
    await running.runDue();
    const during = hook.received[0];
    const header = during?.headers['x-service-signature'] as string;
    expect(header.match(/v1=/g)).toHaveLength(2);
    for (const secret of [endpoint.secret, rotated.secret]) {
      expect(() =>
        verifySignature(during?.body ?? '', header, { secret, now: new Date(clock.now()) }),
      ).not.toThrow();
    }

    clock.advance(61_000);
    await contactCreated('Grace');
    await running.runDue();
    const after = hook.received[1];
    const afterHeader = after?.headers['x-service-signature'] as string;
    expect(afterHeader.match(/v1=/g)).toHaveLength(1);
    expect(() =>
      verifySignature(after?.body ?? '', afterHeader, {
        secret: rotated.secret,
        now: new Date(clock.now()),
      }),
    ).not.toThrow();
    expect(() =>
      verifySignature(after?.body ?? '', afterHeader, {
        secret: endpoint.secret,
        now: new Date(clock.now()),
      }),
    ).toThrow();
  });

  it('refuses a loopback endpoint unless private endpoints are allowed', async () => {
    const hook = await subscriber();
    await endpoints().add({ url: hook.url });
    await contactCreated();
    await worker({ allowPrivate: false }).runDue();
    expect(hook.received).toHaveLength(0);
    expect(await deliveries().list()).toMatchObject([
      { state: 'pending', attempts: 1, lastError: 'endpoint_address_private' },
    ]);
  });

  it('makes a delivery whose lease ran out (a killed worker) due again, with the same id', async () => {
    const hook = await subscriber();
    await endpoints().add({ url: hook.url });
    await contactCreated();
    const running = worker({ leaseMs: 5_000 });
    // Another worker claimed it and was killed before it recorded anything.
    await running.runDue();
    const [delivered] = await deliveries().list();
    await database().query(
      `UPDATE deliveries SET state = 'pending', attempts = 0, next_attempt_at = $2,
              lease_until = $3 WHERE id = $1`,
      [delivered?.id, new Date(clock.now()), new Date(clock.now() + 5_000)],
    );
    await running.runDue();
    expect(hook.received).toHaveLength(1);
    clock.advance(5_000);
    await running.runDue();
    expect(hook.received).toHaveLength(2);
    expect(hook.received[1]?.headers['x-service-delivery']).toBe(delivered?.id);
    expect(await deliveries().list()).toMatchObject([{ state: 'delivered', attempts: 1 }]);
  });

  it('wakes at once on a contact created through the API, without waiting for a poll', async () => {
    const hook = await subscriber();
    await endpoints().add({ url: hook.url });
    // A poll interval no test would wait for: only the wake-up can deliver in time.
    const running = createDeliveryWorker({
      database: database(),
      allowPrivate: true,
      pollIntervalMs: 3_600_000,
    });
    const app = buildServer({
      database: database(),
      logger: false,
      onOutboxEvent: () => running.wake(),
    });
    closers.push(async () => {
      await app.close();
      await running.close();
    });
    const accounts = createAccountStore({ database: database() });
    const account = await accounts.createAccount({ name: 'writer', role: 'AGENT' });
    const { token } = await accounts.issueToken({ accountId: account.id });
    running.start();
    // Let the first look (nothing to do) finish, so the worker is idle on its long timer.
    await new Promise((resolve) => setImmediate(resolve));
    const response = await app.inject({
      method: 'POST',
      url: '/api/contacts',
      headers: { authorization: `Bearer ${token}` },
      payload: { firstName: 'Ada', lastName: 'Lovelace' },
    });
    expect(response.statusCode).toBe(201);
    await hook.waitFor(1);
    expect(JSON.parse(hook.received[0]?.body ?? '{}').data).toMatchObject({
      id: response.json().id,
      firstName: 'Ada',
      lastName: 'Lovelace',
    });
  });

  it('when started, makes a retry when it is due, without waiting for a poll', async () => {
    const hook = await subscriber([{ status: 500 }, { status: 200 }]);
    await endpoints().add({ url: hook.url });
    clock.set(Date.now());
    await contactCreated();
    // The real clock, a 0.05 s retry and a poll interval no test would wait for.
    const running = createDeliveryWorker({
      database: database(),
      allowPrivate: true,
      retryDelays: [0.05],
      pollIntervalMs: 3_600_000,
    });
    closers.push(() => running.close());
    running.start();
    await hook.waitFor(2);
    expect(hook.received[1]?.headers['x-service-delivery']).toBe(
      hook.received[0]?.headers['x-service-delivery'],
    );
  });

  it('lets an attempt in flight finish and records it when closed', async () => {
    const hook = await subscriber(['hang']);
    await endpoints().add({ url: hook.url });
    await contactCreated();
    const running = createDeliveryWorker({
      database: database(),
      clock,
      newId,
      allowPrivate: true,
      attemptTimeoutMs: 300,
      pollIntervalMs: 3_600_000,
    });
    running.start();
    await hook.waitFor(1);
    await running.close();
    expect(await deliveries().list()).toMatchObject([
      { state: 'pending', attempts: 1, lastError: 'timeout' },
    ]);
    const { rows } = await database().query(
      'SELECT lease_until FROM deliveries WHERE lease_until IS NOT NULL',
    );
    expect(rows).toEqual([]);
  });

  // On both drivers: the endpoint is at its limit after each claim, so work may be left, and on
  // PGlite too the ended attempt's slot is filled at once (see slotFreed in delivery-pump.ts).
  it('fills a slot as soon as its attempt ends, without waiting for the wake interval or the poll', async () => {
    const hook = await subscriber([{ status: 200 }, { status: 200 }, { status: 200 }]);
    await endpoints().add({ url: hook.url });
    for (const name of ['Ada', 'Grace', 'Edsger']) await contactCreated(name);
    // One attempt at a time to the endpoint, and neither a wake-up nor the poll comes within
    // the hour: only the end of each attempt can start the next.
    const running = worker({
      endpointConcurrency: 1,
      wakeIntervalMs: 3_600_000,
      pollIntervalMs: 3_600_000,
    });
    running.start();
    await hook.waitFor(3);
    expect(hook.received.map((request) => JSON.parse(request.body).data.firstName)).toEqual([
      'Ada',
      'Grace',
      'Edsger',
    ]);
  });
});

describe('wake-ups', () => {
  // Storage with nothing waiting: `onLook` runs as each look starts (its first statement turns
  // waiting events into deliveries), and the next due date is none.
  function idleStorage(onLook: () => void | Promise<void>): Database {
    const nothing: QueryResult<never> = { rows: [], rowCount: 0 };
    const storage: Database = {
      driver: 'pglite',
      async query<Row>(sql: string) {
        if (sql === TAKE_UNDISPATCHED_EVENTS) await onLook();
        return (
          sql.includes('min(') ? { rows: [{ due: null }], rowCount: 1 } : nothing
        ) as QueryResult<Row>;
      },
      async transaction<T>(callback: (transaction: Database) => Promise<T>) {
        return callback(storage);
      },
      async close() {},
    };
    return storage;
  }

  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers a burst of wake-ups with one look at the end of the wake interval, and one after a quiet spell at once', async () => {
    // Timers and the monotonic clock are fake; the storage answers at once that nothing waits.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    let looks = 0;
    const storage = idleStorage(() => {
      looks++;
    });
    const running = createDeliveryWorker({
      database: storage,
      wakeIntervalMs: 50,
      pollIntervalMs: 3_600_000,
    });
    running.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(looks).toBe(1);
    // Five writes, 5 ms apart, each waking the worker: no look before the interval ends…
    for (let write = 0; write < 5; write++) {
      running.wake();
      await vi.advanceTimersByTimeAsync(5);
    }
    expect(looks).toBe(1);
    // …then one for all of them.
    await vi.advanceTimersByTimeAsync(25);
    expect(looks).toBe(2);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(looks).toBe(2);
    // After a quiet spell, a wake-up looks at once.
    running.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(looks).toBe(3);
    await running.close();
  });

  it('answers wake-ups that come during a look with one look at the end of the wake interval, not at once', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const looksAt: number[] = [];
    const storage = idleStorage(async () => {
      looksAt.push(performance.now());
      // A busy database: the look's first statement answers after 3 ms.
      await new Promise((resolve) => setTimeout(resolve, 3));
    });
    const running = createDeliveryWorker({
      database: storage,
      wakeIntervalMs: 10,
      pollIntervalMs: 3_600_000,
    });
    running.start();
    // Writes 1 and 2 ms into the first look wake the worker while it looks.
    await vi.advanceTimersByTimeAsync(1);
    running.wake();
    await vi.advanceTimersByTimeAsync(1);
    running.wake();
    await vi.advanceTimersByTimeAsync(5);
    expect(looksAt).toEqual([0]);
    // One look for both, when the 10 ms since the first began are over.
    await vi.advanceTimersByTimeAsync(10);
    expect(looksAt).toEqual([0, 10]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(looksAt).toEqual([0, 10]);
    await running.close();
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { type Subscriber, startSubscriber } from '../../test/support/subscriber.js';
import { createIdGenerator } from '../ids.js';
import { nextDeliveryDueAt } from '../stores/delivery-claim-store.js';
import { recordOutboxEvent } from '../stores/outbox-store.js';
import { createDeliveryWorker } from './delivery-worker.js';
import type { DeliveryWorkerOptions } from './delivery-worker-options.js';
import { createEndpointStore } from './webhook-endpoints.js';

// An endpoint's `rateLimit`: a token bucket in its row, refilled at `rateLimit` a second up to
// twice that, spent by the claim of whichever instance claims (stores/delivery-claim-store.ts).
// Time is the test's clock: a step moves it, then each worker runs what is due.

describe("an endpoint's rate limit", () => {
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

  function worker(options: Partial<DeliveryWorkerOptions> = {}) {
    const created = createDeliveryWorker({
      database: database(),
      clock,
      newId,
      allowPrivate: true,
      random: () => 0.5,
      ...options,
    });
    closers.push(() => created.close());
    return created;
  }

  async function rateLimitedEndpoint(rateLimit: number) {
    const hook = await startSubscriber();
    subscribers.push(hook);
    const endpoints = createEndpointStore({ database: database(), clock, newId });
    const endpoint = await endpoints.add({ url: hook.url, rateLimit });
    return { hook, endpoint };
  }

  // Many events in one statement-light loop: each becomes one delivery at the fan-out.
  async function contactsCreated(count: number) {
    for (let index = 0; index < count; index += 1) {
      await recordOutboxEvent(
        database(),
        { event: 'contact.created', data: { id: newId('con'), firstName: `C${index}` } },
        { clock, newId },
      );
    }
  }

  async function deliveryStates() {
    const { rows } = await database().query<{ state: string; attempts: number; count: number }>(
      `SELECT state, attempts, count(*)::int AS count FROM deliveries
        GROUP BY state, attempts ORDER BY state, attempts`,
    );
    return rows;
  }

  it('lets a burst of twice the limit go at once, then the limit a second; the rest wait', async () => {
    const { hook } = await rateLimitedEndpoint(5);
    await contactsCreated(40);
    const running = worker();

    await running.runDue();
    expect(hook.received).toHaveLength(10);
    // Held back, not failed: pending, no attempt made or counted.
    expect(await deliveryStates()).toEqual([
      { state: 'delivered', attempts: 1, count: 10 },
      { state: 'pending', attempts: 0, count: 30 },
    ]);
    const { rows } = await database().query<{ count: number }>(
      'SELECT count(*)::int AS count FROM delivery_attempts',
    );
    expect(rows[0]?.count).toBe(10);

    // Then one every 200 ms: 5 a second.
    const sentBy: number[] = [];
    for (let step = 1; step <= 30; step += 1) {
      clock.advance(100);
      await running.runDue();
      sentBy.push(hook.received.length);
    }
    expect(sentBy.filter((_, index) => index % 10 === 9)).toEqual([15, 20, 25]);
    expect(sentBy.slice(0, 4)).toEqual([10, 11, 11, 12]);
  });

  it('makes the next held delivery due when the bucket holds a token again', async () => {
    const { hook } = await rateLimitedEndpoint(2);
    await contactsCreated(6);
    await worker().runDue();
    expect(hook.received).toHaveLength(4);
    // A started worker sleeps until then rather than looking again at once (delivery-pump.ts).
    expect(await nextDeliveryDueAt(database(), [])).toBe(clock.now() + 500);
    clock.advance(250);
    expect(await nextDeliveryDueAt(database(), [])).toBe(clock.now() + 250);
  });

  it('holds two workers on one database to the limit together, within 10 %', async () => {
    const limit = 20;
    const { hook } = await rateLimitedEndpoint(limit);
    await contactsCreated(400);
    const sent = [0, 0];
    const workers = [0, 1].map((index) =>
      worker({
        onAttempt: () => {
          sent[index] = (sent[index] ?? 0) + 1;
        },
      }),
    );
    const runBoth = () => Promise.all(workers.map((running) => running.runDue()));

    // The burst (twice the limit) and its first second, then a measured window of 10 s in
    // steps of 50 ms, each worker looking at every step.
    await runBoth();
    expect(hook.received.length).toBeLessThanOrEqual(2 * limit);
    for (let step = 0; step < 20; step += 1) {
      clock.advance(50);
      await runBoth();
    }
    const before = hook.received.length;
    const windowSeconds = 10;
    for (let step = 0; step < windowSeconds * 20; step += 1) {
      clock.advance(50);
      await runBoth();
    }
    const rate = (hook.received.length - before) / windowSeconds;
    expect(rate).toBeGreaterThanOrEqual(limit * 0.9);
    expect(rate).toBeLessThanOrEqual(limit * 1.1);
    // Both took part: the budget is the database's, not each worker's.
    expect(sent[0]).toBeGreaterThan(0);
    expect(sent[1]).toBeGreaterThan(0);
    expect((sent[0] ?? 0) + (sent[1] ?? 0)).toBe(hook.received.length);
  });

  it('leaves an endpoint without a limit unthrottled beside a limited one', async () => {
    const limited = await rateLimitedEndpoint(1);
    const hook = await startSubscriber();
    subscribers.push(hook);
    await createEndpointStore({ database: database(), clock, newId }).add({ url: hook.url });
    await contactsCreated(12);
    await worker().runDue();
    expect(limited.hook.received).toHaveLength(2);
    expect(hook.received).toHaveLength(12);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { type Subscriber, startSubscriber } from '../../test/support/subscriber.js';
import { createIdGenerator } from '../ids.js';
import { recordOutboxEvent } from '../stores/outbox-store.js';
import { createDeliveryWorker } from './delivery-worker.js';
import { createEndpointStore } from './webhook-endpoints.js';

// A backlog drains: the scaled-down form of the delivery-scale benchmark's outage row
// (bench/delivery-scale.bench.mjs), on an injected clock. The full size (every receiver down 40 s
// at 50 creates a second, then back) is measured there, not timed here.

const ENDPOINTS = 10;
// 1,000 deliveries: each claim still reads every due delivery (a cost the claim's statement
// loses separately), so that a backlog of thousands would take minutes on a loaded machine.
const EVENTS = 100;

describe('a backlog after an outage', () => {
  const database = useTestDatabase();
  const clock = manualClock();
  const newId = createIdGenerator({ now: () => clock.now() });
  const closers: (() => Promise<void>)[] = [];

  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    clock.set('2026-03-01T09:00:00.000Z');
  });

  async function receiver(): Promise<Subscriber> {
    const started = await startSubscriber([{ status: 204 }]);
    closers.push(() => started.close());
    return started;
  }

  it('arrives exactly once per delivery once the receiver is back, every endpoint at its limit', async () => {
    const hook = await receiver();
    const endpoints = createEndpointStore({ database: database(), clock, newId });
    for (let index = 0; index < ENDPOINTS; index++) {
      await endpoints.add({ url: `${hook.url}/${index}`, events: ['contact.created'] });
    }
    const worker = createDeliveryWorker({
      database: database(),
      clock,
      newId,
      allowPrivate: true,
      retryDelays: [1, 1],
      random: () => 0.5,
      attemptTimeoutMs: 60_000,
      // No poll comes within the test: after the first look, only wake-ups and ended attempts
      // start a claim.
      pollIntervalMs: 3_600_000,
    });
    closers.push(() => worker.close());

    // The outage: every receiver refuses connections while the events come.
    await hook.stop();
    for (let index = 0; index < EVENTS; index++) {
      await recordOutboxEvent(
        database(),
        {
          event: 'contact.created',
          data: { id: newId('con'), firstName: `Waiting ${index}`, lastName: 'Backlog' },
        },
        { clock, newId },
      );
    }
    await worker.runDue();
    const waiting = await database().query<{ state: string; attempts: number; count: number }>(
      'SELECT state, attempts, count(*)::int AS count FROM deliveries GROUP BY state, attempts',
    );
    expect(waiting.rows).toEqual([{ state: 'pending', attempts: 1, count: ENDPOINTS * EVENTS }]);
    expect(hook.received).toHaveLength(0);

    // The receivers are back and the retries are due: the started worker drains the backlog.
    await hook.listen();
    clock.advance(1_500);
    worker.start();
    await hook.waitFor(ENDPOINTS * EVENTS);
    await worker.close();

    const arrived = hook.received.map((request) => String(request.headers['x-service-delivery']));
    expect(arrived).toHaveLength(ENDPOINTS * EVENTS);
    expect(new Set(arrived).size).toBe(ENDPOINTS * EVENTS);
    const { rows: ids } = await database().query<{ id: string }>('SELECT id FROM deliveries');
    expect(new Set(arrived)).toEqual(new Set(ids.map((row) => row.id)));
    const done = await database().query<{ state: string; attempts: number; count: number }>(
      'SELECT state, attempts, count(*)::int AS count FROM deliveries GROUP BY state, attempts',
    );
    expect(done.rows).toEqual([{ state: 'delivered', attempts: 2, count: ENDPOINTS * EVENTS }]);
    // Every event reached every endpoint once.
    const perEvent = new Map<string, number>();
    for (const request of hook.received) {
      const eventId = String(JSON.parse(request.body).eventId);
      perEvent.set(eventId, (perEvent.get(eventId) ?? 0) + 1);
    }
    expect(perEvent.size).toBe(EVENTS);
    expect(new Set(perEvent.values())).toEqual(new Set([ENDPOINTS]));
  });
});

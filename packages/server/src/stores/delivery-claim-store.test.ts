import { describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { fanOutEvents } from '../delivery/fan-out.js';
import { createEndpointStore } from '../delivery/webhook-endpoints.js';
import { createIdGenerator } from '../ids.js';
import {
  claimDueDeliveries,
  type DeliveryClaim,
  nextDeliveryDueAt,
} from './delivery-claim-store.js';
import { recordOutboxEvent } from './outbox-store.js';

describe('claimDueDeliveries', () => {
  const database = useTestDatabase();
  const clock = manualClock();
  const newId = createIdGenerator({ now: () => clock.now() });
  const endpoints = () => createEndpointStore({ database: database(), clock, newId });

  /** `count` events of `kind`, a millisecond apart, fanned out to the endpoints that take them. */
  async function events(kind: 'contact.created' | 'deal.updated', count: number) {
    for (let index = 0; index < count; index++) {
      await recordOutboxEvent(
        database(),
        { event: kind, data: { id: newId('con') } },
        {
          clock,
          newId,
        },
      );
      clock.advance(1);
    }
    while ((await fanOutEvents(database(), { clock, newId })) > 0);
  }

  function claim(options: Partial<DeliveryClaim> = {}) {
    return claimDueDeliveries(database(), {
      now: clock.now(),
      leaseMs: 20_000,
      limit: 32,
      endpointConcurrency: 4,
      busyEndpoints: [],
      busyCounts: [],
      ...options,
    });
  }

  it("claims another endpoint's due delivery while a busy endpoint has a backlog due before it", async () => {
    const busy = await endpoints().add({
      url: 'https://busy.example.com/',
      events: ['contact.created'],
    });
    const other = await endpoints().add({
      url: 'https://other.example.com/',
      events: ['deal.updated'],
    });
    // The busy endpoint's backlog is due first, and this worker has every slot of it taken.
    await events('contact.created', 200);
    await events('deal.updated', 1);
    const claimed = await claim({ limit: 28, busyEndpoints: [busy.id], busyCounts: [4] });
    expect(claimed.map((row) => row.endpoint_id)).toEqual([other.id]);
  });

  it('shares the free slots between the endpoints in turns, oldest first in each turn', async () => {
    const first = await endpoints().add({
      url: 'https://first.example.com/',
      events: ['contact.created'],
    });
    const second = await endpoints().add({
      url: 'https://second.example.com/',
      events: ['deal.updated'],
    });
    await events('contact.created', 20);
    await events('deal.updated', 20);
    const claimed = await claim({ limit: 4 });
    const byEndpoint = (id: string) => claimed.filter((row) => row.endpoint_id === id);
    // Two each, though all of the first endpoint's deliveries are due before the second's.
    expect(byEndpoint(first.id)).toHaveLength(2);
    expect(byEndpoint(second.id)).toHaveLength(2);
    // Each endpoint's claimed deliveries are its oldest.
    const { rows } = await database().query<{ id: string; endpoint_id: string }>(
      `SELECT id, endpoint_id FROM deliveries ORDER BY next_attempt_at, created_at, id`,
    );
    for (const endpoint of [first.id, second.id]) {
      const oldest = rows.filter((row) => row.endpoint_id === endpoint).slice(0, 2);
      expect(
        byEndpoint(endpoint)
          .map((row) => row.id)
          .sort(),
      ).toEqual(oldest.map((row) => row.id).sort());
    }
  });

  it('claims at most the free slots of each endpoint, and nothing of a disabled one', async () => {
    const open = await endpoints().add({
      url: 'https://open.example.com/',
      events: ['contact.created'],
    });
    const off = await endpoints().add({
      url: 'https://off.example.com/',
      events: ['deal.updated'],
    });
    await events('contact.created', 10);
    await events('deal.updated', 10);
    await endpoints().disable(off.id);
    const claimed = await claim({ busyEndpoints: [open.id], busyCounts: [1] });
    expect(claimed.map((row) => row.endpoint_id)).toEqual([open.id, open.id, open.id]);
    // Leased: a second claim, by another worker, takes the next ones.
    const next = await claim({ busyEndpoints: [], busyCounts: [] });
    expect(next).toHaveLength(4);
    expect(new Set([...claimed, ...next].map((row) => row.id)).size).toBe(7);
  });
});

describe('nextDeliveryDueAt', () => {
  const database = useTestDatabase();
  const clock = manualClock();
  const newId = createIdGenerator({ now: () => clock.now() });
  const endpoints = () => createEndpointStore({ database: database(), clock, newId });

  it('is the earliest of the next attempts and the leases, the endpoints passed by left out', async () => {
    const start = clock.now();
    const a = await endpoints().add({ url: 'https://a.example.com/', events: ['contact.created'] });
    const b = await endpoints().add({ url: 'https://b.example.com/', events: ['deal.updated'] });
    expect(await nextDeliveryDueAt(database(), [])).toBeUndefined();
    for (const kind of ['contact.created', 'contact.created', 'deal.updated'] as const) {
      await recordOutboxEvent(
        database(),
        { event: kind, data: { id: newId('con') } },
        {
          clock,
          newId,
        },
      );
    }
    await fanOutEvents(database(), { clock, newId });
    expect(await nextDeliveryDueAt(database(), [])).toBe(start);
    // A's two leased until start + 20 s, B's due in 5 s.
    await claimDueDeliveries(database(), {
      now: start,
      leaseMs: 20_000,
      limit: 2,
      endpointConcurrency: 2,
      busyEndpoints: [b.id],
      busyCounts: [2],
    });
    await database().query(`UPDATE deliveries SET next_attempt_at = $2 WHERE endpoint_id = $1`, [
      b.id,
      new Date(start + 5_000),
    ]);
    expect(await nextDeliveryDueAt(database(), [])).toBe(start + 5_000);
    expect(await nextDeliveryDueAt(database(), [b.id])).toBe(start + 20_000);
    expect(await nextDeliveryDueAt(database(), [a.id, b.id])).toBeUndefined();
  });
});

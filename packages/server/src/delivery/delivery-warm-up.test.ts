import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { createIdGenerator } from '../ids.js';
import { type RecordingReceiver, startRecordingReceiver } from '../recording-receiver.js';
import { recordOutboxEvent } from '../stores/outbox-store.js';
import { warmUpDelivery } from './delivery-warm-up.js';
import { fanOutEvents } from './fan-out.js';
import { createEndpointStore } from './webhook-endpoints.js';

const TABLES = [
  'contacts',
  'audit_entries',
  'outbox_events',
  'deliveries',
  'delivery_attempts',
  'webhook_endpoints',
];

describe('warmUpDelivery', () => {
  const database = useTestDatabase();
  const clock = manualClock();
  const newId = createIdGenerator({ now: () => clock.now() });
  let receiver: RecordingReceiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  // Every row of the tables a create and its delivery touch, as text: what "nothing kept" means.
  async function snapshot(): Promise<Record<string, string[]>> {
    const tables: Record<string, string[]> = {};
    for (const table of TABLES) {
      const { rows } = await database().query<{ row: string }>(
        `SELECT t::text AS row FROM ${table} t ORDER BY 1`,
      );
      tables[table] = rows.map((row) => row.row);
    }
    return tables;
  }

  it('makes webhooks through the whole path and keeps none of it', async () => {
    const done = await warmUpDelivery(database(), { clock, newId, rounds: 3 });

    // Three rounds of two creates, each event delivered to the warm-up's ten endpoints.
    expect(done).toEqual({ rounds: 3, webhooks: 60 });
    expect(await snapshot()).toEqual(Object.fromEntries(TABLES.map((table) => [table, []])));
  });

  it('sends nothing real and leaves real work as it was', async () => {
    receiver = await startRecordingReceiver({ clock });
    const endpoints = createEndpointStore({ database: database(), clock, newId });
    const real = await endpoints.add({ url: receiver.url });
    receiver.useSecret(real.secret);
    const event = (firstName: string) =>
      recordOutboxEvent(
        database(),
        { event: 'contact.created', data: { id: newId('con'), firstName, lastName: 'L' } },
        { clock, newId },
      );
    // Real deliveries due, and real events still to fan out: the warm-up's statements meet both
    // (they take the oldest work first).
    await event('Ada');
    await event('Alan');
    expect(await fanOutEvents(database(), { clock, newId })).toBe(2);
    await event('Grace');
    await event('Edsger');
    const before = await snapshot();
    expect(before.deliveries).toHaveLength(2);

    const done = await warmUpDelivery(database(), { clock, newId, rounds: 3 });

    expect(done.rounds).toBe(3);
    // Its own webhooks still went out, once the real events were out of its way.
    expect(done.webhooks).toBeGreaterThan(0);
    expect(await snapshot()).toEqual(before);
    expect(receiver.deliveries).toHaveLength(0);
  });

  it('starts no round once its budget is spent', async () => {
    let ticks = 0;
    const done = await warmUpDelivery(database(), {
      clock,
      newId,
      rounds: 10,
      budgetMs: 2_500,
      // 0 when the budget starts, then 1,000, 2,000 and 3,000 at each round's check.
      now: () => 1_000 * ticks++,
    });
    expect(done.rounds).toBe(2);
    expect(await snapshot()).toEqual(Object.fromEntries(TABLES.map((table) => [table, []])));
  });
});

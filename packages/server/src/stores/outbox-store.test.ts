import { describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { createEndpointStore } from '../delivery/webhook-endpoints.js';
import { createIdGenerator } from '../ids.js';
import { recordOutboxEvent } from './outbox-store.js';

describe('recordOutboxEvent', () => {
  const database = useTestDatabase();
  const clock = manualClock('2026-03-01T09:00:00.000Z');
  const newId = createIdGenerator({ now: () => clock.now() });

  it('writes the event row and returns the body delivery will send', async () => {
    const data = { id: 'con_1', firstName: 'Ada', lastName: 'Lovelace' };
    const event = await recordOutboxEvent(
      database(),
      { event: 'contact.created', data },
      { clock, newId },
    );
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_[0-9A-Z]{26}$/),
      event: 'contact.created',
      createdAt: '2026-03-01T09:00:00.000Z',
      data,
    });
    const { rows } = await database().query(
      'SELECT id, event, data, created_at, dispatched_at FROM outbox_events',
    );
    expect(rows).toEqual([
      {
        id: event.id,
        event: 'contact.created',
        data,
        created_at: '2026-03-01T09:00:00.000Z',
        // No endpoint takes it: written dispatched, with nothing for the fan-out to do.
        dispatched_at: '2026-03-01T09:00:00.000Z',
      },
    ]);
  });

  it('writes an event pending only when an active endpoint, added by then, takes its kind', async () => {
    const endpoints = createEndpointStore({ database: database(), clock, newId });
    const pending = async (event: 'contact.created' | 'deal.updated') => {
      const written = await recordOutboxEvent(
        database(),
        { event, data: { id: newId('con') } },
        { clock, newId },
      );
      const { rows } = await database().query<{ pending: boolean }>(
        'SELECT dispatched_at IS NULL AS pending FROM outbox_events WHERE id = $1',
        [written.id],
      );
      return rows[0]?.pending;
    };
    const disabled = await endpoints.add({ url: 'https://off.example.com/' });
    await endpoints.disable(disabled.id);
    await endpoints.add({ url: 'https://deals.example.com/', events: ['deal.updated'] });
    expect(await pending('contact.created')).toBe(false);
    expect(await pending('deal.updated')).toBe(true);
    // An endpoint added after the event's time does not take it (as the fan-out would not).
    clock.advance(60_000);
    await endpoints.add({ url: 'https://later.example.com/' });
    clock.advance(-30_000);
    expect(await pending('contact.created')).toBe(false);
    clock.advance(30_000);
    expect(await pending('contact.created')).toBe(true);
  });

  it('is rolled back with the transaction it was written in', async () => {
    await expect(
      database().transaction(async (transaction) => {
        await recordOutboxEvent(
          transaction,
          { event: 'contact.created', data: { id: 'con_2' } },
          { clock, newId },
        );
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect((await database().query('SELECT id FROM outbox_events')).rows).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { createIdGenerator } from '../ids.js';
import { recordOutboxEvent } from './outbox.js';

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
        dispatched_at: null,
      },
    ]);
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

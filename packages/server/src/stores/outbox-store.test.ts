import { TraceFlags } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { withActiveSpan } from '../../test/support/recorded-spans.js';
import { createEndpointStore } from '../delivery/webhook-endpoints.js';
import { createIdGenerator } from '../ids.js';
import { pruneDispatchedEvents, recordOutboxEvent } from './outbox-store.js';

/** The span of a request with traces on, as the request's hooks make it active. */
const REQUEST_SPAN = {
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId: '00f067aa0ba902b7',
  traceFlags: TraceFlags.SAMPLED,
};

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

  it("keeps the active span's traceparent beside the event, and nothing without a span", async () => {
    const record = () =>
      recordOutboxEvent(
        database(),
        { event: 'contact.created', data: { id: newId('con') } },
        { clock, newId },
      );
    const traced = await withActiveSpan(REQUEST_SPAN, record);
    // Traces off: no span is active, and no row is written.
    const untraced = await record();
    const { rows } = await database().query(
      `SELECT e.id, t.traceparent FROM outbox_events AS e
         LEFT JOIN outbox_trace_contexts AS t ON t.event_id = e.id ORDER BY e.seq`,
    );
    expect(rows).toEqual([
      { id: traced.id, traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
      { id: untraced.id, traceparent: null },
    ]);
    expect((await database().query('SELECT event_id FROM outbox_trace_contexts')).rows).toEqual([
      { event_id: traced.id },
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

describe('pruneDispatchedEvents', () => {
  const database = useTestDatabase();
  const clock = manualClock('2026-03-01T09:00:00.000Z');
  const newId = createIdGenerator({ now: () => clock.now() });

  it('deletes a dispatched event with the trace context it kept', async () => {
    // No endpoint takes it: written dispatched.
    const event = await withActiveSpan(REQUEST_SPAN, () =>
      recordOutboxEvent(
        database(),
        { event: 'contact.created', data: { id: 'con_3' } },
        { clock, newId },
      ),
    );
    const kept = await database().query('SELECT event_id FROM outbox_trace_contexts');
    expect(kept.rows).toEqual([{ event_id: event.id }]);
    expect(await pruneDispatchedEvents(database(), new Date('2026-03-01T09:00:00.001Z'))).toBe(1);
    expect((await database().query('SELECT id FROM outbox_events')).rows).toEqual([]);
    expect((await database().query('SELECT event_id FROM outbox_trace_contexts')).rows).toEqual([]);
  });
});

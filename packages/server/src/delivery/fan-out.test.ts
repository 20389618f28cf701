import { describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { testDriver, useTestDatabase } from '../../test/support/database.js';
import { createIdGenerator } from '../ids.js';
import type { Database } from '../storage/database.js';
import { recordOutboxEvent } from '../stores/outbox-store.js';
import { fanOutEvents } from './fan-out.js';
import { createEndpointStore } from './webhook-endpoints.js';

describe('fanOutEvents', () => {
  const database = useTestDatabase();
  const clock = manualClock();
  const newId = createIdGenerator({ now: () => clock.now() });
  const endpoints = () => createEndpointStore({ database: database(), clock, newId });
  const event = (firstName: string) =>
    recordOutboxEvent(
      database(),
      { event: 'contact.created', data: { id: newId('con'), firstName, lastName: 'L' } },
      { clock, newId },
    );

  async function pairs() {
    const { rows } = await database().query<{ event_id: string; endpoint_id: string }>(
      `SELECT event_id, endpoint_id FROM deliveries ORDER BY event_id, endpoint_id`,
    );
    return rows.map((row) => `${row.event_id} ${row.endpoint_id}`);
  }

  it('makes one pending delivery per event and active endpoint, and marks the events dispatched', async () => {
    const a = await endpoints().add({ url: 'https://a.example.com/' });
    const b = await endpoints().add({ url: 'https://b.example.com/' });
    const off = await endpoints().add({ url: 'https://c.example.com/' });
    await endpoints().disable(off.id);
    const first = await event('Ada');
    const second = await event('Grace');
    expect(await fanOutEvents(database(), { clock, newId })).toBe(2);
    expect(await pairs()).toEqual(
      [
        `${first.id} ${a.id}`,
        `${first.id} ${b.id}`,
        `${second.id} ${a.id}`,
        `${second.id} ${b.id}`,
      ].sort(),
    );
    const { rows } = await database().query<{ state: string; attempts: number }>(
      'SELECT DISTINCT state, attempts FROM deliveries',
    );
    expect(rows).toEqual([{ state: 'pending', attempts: 0 }]);
    const pending = await database().query(
      'SELECT id FROM outbox_events WHERE dispatched_at IS NULL',
    );
    expect(pending.rows).toEqual([]);
    // Dispatched events are not fanned out again.
    expect(await fanOutEvents(database(), { clock, newId })).toBe(0);
    expect(await pairs()).toHaveLength(4);
  });

  it('never makes a second delivery for the same event and endpoint', async () => {
    const endpoint = await endpoints().add({ url: 'https://a.example.com/' });
    const created = await event('Ada');
    await fanOutEvents(database(), { clock, newId });
    // As if another instance had not seen the first one's dispatch.
    await database().query(
      'UPDATE outbox_events SET dispatched_at = NULL, fan_out_to = ARRAY[$1]',
      [endpoint.id],
    );
    await Promise.all([
      fanOutEvents(database(), { clock, newId }),
      fanOutEvents(database(), { clock, newId }),
    ]);
    expect(await pairs()).toEqual([`${created.id} ${endpoint.id}`]);
  });

  it('leaves the events to the next look when it stops between finding deliveries and making them', async () => {
    const endpoint = await endpoints().add({ url: 'https://a.example.com/' });
    const created = await event('Ada');
    const failing: Database = {
      ...database(),
      async query<Row>(sql: string, params?: unknown[]) {
        if (sql.includes('INSERT INTO deliveries')) throw new Error('the process stopped here');
        return database().query<Row>(sql, params);
      },
    };
    await expect(fanOutEvents(failing, { clock, newId })).rejects.toThrow('stopped here');
    expect(await pairs()).toEqual([]);
    const { rows } = await database().query(
      'SELECT id FROM outbox_events WHERE dispatched_at IS NULL',
    );
    expect(rows).toEqual([{ id: created.id }]);
    expect(await fanOutEvents(database(), { clock, newId })).toBe(1);
    expect(await pairs()).toEqual([`${created.id} ${endpoint.id}`]);
  });

  it('makes one delivery per event and endpoint when another instance takes the same events between its two statements', async () => {
    const endpoint = await endpoints().add({ url: 'https://a.example.com/' });
    const created = await event('Ada');
    // This look stops after finding the deliveries, until the other instance has done its own.
    let other: Promise<number> | undefined;
    const slow: Database = {
      ...database(),
      async query<Row>(sql: string, params?: unknown[]) {
        if (sql.includes('INSERT INTO deliveries')) {
          other = fanOutEvents(database(), { clock, newId });
          expect(await other).toBe(1);
        }
        return database().query<Row>(sql, params);
      },
    };
    expect(await fanOutEvents(slow, { clock, newId })).toBe(1);
    expect(other).toBeDefined();
    expect(await pairs()).toEqual([`${created.id} ${endpoint.id}`]);
    const { rows } = await database().query(
      'SELECT id FROM outbox_events WHERE dispatched_at IS NULL',
    );
    expect(rows).toEqual([]);
  });

  it('marks events whose endpoints were all removed since in the statement that finds them', async () => {
    // Taken when written (so pending), then the endpoint is removed before the look.
    const gone = await endpoints().add({ url: 'https://gone.example.com/' });
    await endpoints().add({ url: 'https://deals.example.com/', events: ['deal.updated'] });
    await event('Ada');
    await endpoints().remove(gone.id);
    const statements: string[] = [];
    const counting: Database = {
      ...database(),
      async query<Row>(sql: string, params?: unknown[]) {
        statements.push(sql);
        return database().query<Row>(sql, params);
      },
      transaction: () => Promise.reject(new Error('no transaction expected')),
    };
    expect(await fanOutEvents(counting, { clock, newId })).toBe(1);
    expect(statements).toHaveLength(1);
    expect(await pairs()).toEqual([]);
    const { rows } = await database().query(
      'SELECT id FROM outbox_events WHERE dispatched_at IS NULL',
    );
    expect(rows).toEqual([]);
  });

  // Which endpoints take an event is decided once, as it is written: an endpoint that appears or
  // changes between the write and the fan-out does not change who receives it.
  it('sends an event to the endpoints that took it when it was written, and to them only', async () => {
    const taker = await endpoints().add({ url: 'https://taker.example.com/' });
    const paused = await endpoints().add({ url: 'https://paused.example.com/' });
    const created = await event('Ada');
    // Before the fan-out: one endpoint is disabled, and another appears, dated before the event
    // (its transaction began first, or its instance's clock is behind).
    await endpoints().disable(paused.id);
    clock.advance(-1_000);
    await endpoints().add({ url: 'https://late.example.com/' });
    clock.advance(1_000);
    expect(await fanOutEvents(database(), { clock, newId })).toBe(1);
    expect(await pairs()).toEqual(
      [`${created.id} ${taker.id}`, `${created.id} ${paused.id}`].sort(),
    );
    // The disabled endpoint's delivery waits, as its others do, until it is enabled again.
    const { rows } = await database().query<{ endpoint_id: string; state: string }>(
      'SELECT endpoint_id, state FROM deliveries WHERE endpoint_id = $1',
      [paused.id],
    );
    expect(rows).toEqual([{ endpoint_id: paused.id, state: 'pending' }]);
  });

  // PGlite never analyzes a table by itself, so the plan its cache keeps from the first looks,
  // made while the outbox was small, stays while the outbox grows. With its LIMIT written into
  // the text that plan was a sequential scan, and a long-running server's creates fell from 2,750
  // to 680 a second within 30 s. One connection on PGlite, so its prepared statements are in view.
  it.runIf(testDriver === 'pglite')(
    'reads the outbox through its index of pending events, even with the plan kept from an empty outbox',
    async () => {
      for (let look = 0; look < 8; look++) {
        await event(`Look ${look}`);
        await fanOutEvents(database(), { clock, newId });
      }
      const { rows } = await database().query<{ name: string; generic: string }>(
        `SELECT name, generic_plans::text AS generic FROM pg_prepared_statements
          WHERE statement LIKE '%FROM outbox_events WHERE fan_out_to IS NOT NULL%'`,
      );
      expect(rows).toHaveLength(1);
      // The plan cache has settled on its generic plan: the one every later look runs.
      expect(Number(rows[0]?.generic)).toBeGreaterThan(0);
      const plan = await database().query<{ 'QUERY PLAN': string }>(
        `EXPLAIN EXECUTE ${rows[0]?.name}('2026-03-01T09:00:00Z', 200)`,
      );
      const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(text).toContain('outbox_events_fan_out');
      expect(text).not.toMatch(/Seq Scan on outbox_events/);
    },
  );

  it('sends an endpoint only the events that happened after it was added, in batches', async () => {
    // An endpoint from before, so that the first event is pending when the second is added.
    const earlier = await endpoints().add({ url: 'https://earlier.example.com/' });
    const before = await event('Before');
    clock.advance(1_000);
    const endpoint = await endpoints().add({ url: 'https://a.example.com/' });
    const after = [];
    for (let index = 0; index < 5; index++) after.push(await event(`After ${index}`));
    expect(await fanOutEvents(database(), { clock, newId }, 4)).toBe(4);
    expect(await fanOutEvents(database(), { clock, newId }, 4)).toBe(2);
    expect(await pairs()).toEqual(
      [
        `${before.id} ${earlier.id}`,
        ...after.flatMap((created) => [
          `${created.id} ${earlier.id}`,
          `${created.id} ${endpoint.id}`,
        ]),
      ].sort(),
    );
  });

  it('sends an endpoint the kinds it listed, and every kind, later ones included, without a list', async () => {
    const all = await endpoints().add({ url: 'https://all.example.com/' });
    const listed = await endpoints().add({
      url: 'https://deals.example.com/',
      events: ['deal.updated', 'contact.deleted'],
    });
    expect(all.events).toEqual(['*']);
    expect(listed.events).toEqual(['deal.updated', 'contact.deleted']);
    const record = (kind: string) =>
      recordOutboxEvent(
        database(),
        { event: kind as 'contact.created', data: { id: newId('con') } },
        { clock, newId },
      );
    const created = await record('contact.created');
    const updated = await record('deal.updated');
    // A kind a later release adds reaches the endpoint that subscribed to everything only.
    const later = await record('contact.merged');
    await fanOutEvents(database(), { clock, newId });
    expect(await pairs()).toEqual(
      [
        `${created.id} ${all.id}`,
        `${updated.id} ${all.id}`,
        `${updated.id} ${listed.id}`,
        `${later.id} ${all.id}`,
      ].sort(),
    );
  });
});

import { TraceFlags } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { withActiveSpan } from '../../test/support/recorded-spans.js';
import { createIdGenerator } from '../ids.js';
import type { Database } from '../storage/database.js';
import { contactTable } from './contact-store.js';
import { resourceStore } from './resource-store.js';
import type { ResourceTable } from './resource-table.js';

/** Sequences as their routes store them (a JSON column), announced and audited here. */
const sequenceTable: ResourceTable = {
  name: 'sequence',
  collection: 'sequences',
  idPrefix: 'seq',
  fields: {
    name: { column: 'name' },
    status: { column: 'status' },
    steps: { column: 'steps', type: 'json' },
  },
  defaults: { status: 'DRAFT', steps: [] },
  updatedAt: true,
  audited: { created: true, updated: false, deleted: true },
  events: {},
};

describe('createRecord', () => {
  const database = useTestDatabase();
  const clock = manualClock('2026-03-01T09:00:00.000Z');
  const newId = createIdGenerator({ now: () => clock.now() });
  const contacts = resourceStore(contactTable({ clock, newId }), { clock, newId });
  const actor = { type: 'service_account' as const, id: 'sa_1' };

  /** The database, counting the statements and transactions sent through it. */
  function counting(): { counted: Database; statements: string[]; transactions: number[] } {
    const statements: string[] = [];
    const transactions: number[] = [];
    const counted: Database = Object.create(database());
    counted.query = (sql, params) => {
      statements.push(sql);
      return database().query(sql, params);
    };
    counted.transaction = (work) => {
      transactions.push(1);
      return database().transaction(work);
    };
    return { counted, statements, transactions };
  }

  async function stored(id: string) {
    const { rows } = await database().query<{ audit: number; events: number; rows: number }>(
      `SELECT (SELECT count(*)::int FROM contacts WHERE id = $1) AS rows,
              (SELECT count(*)::int FROM audit_entries WHERE target_id = $1) AS audit,
              (SELECT count(*)::int FROM outbox_events WHERE data->>'id' = $1) AS events`,
      [id],
    );
    return rows[0];
  }

  it('commits a contact on its own in one statement: the row, its audit entry and its event', async () => {
    const { counted, statements, transactions } = counting();
    const { item, pending } = await contacts.createRecord(counted, {
      actor,
      body: { firstName: 'Ada', lastName: 'Lovelace' },
    });
    expect(statements).toHaveLength(1);
    expect(transactions).toHaveLength(0);
    // No notification in it: PostgreSQL would serialize the commits of every create on it. The
    // instance announces committed events itself, coalesced (createOutboxAnnouncer).
    expect(statements[0]).not.toMatch(/pg_notify/i);
    expect(item).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', lifecycle: 'LEAD' });
    // No endpoint takes contact.created here: the event was written dispatched.
    expect(pending).toBe(false);
    expect(await stored(String(item.id))).toEqual({ rows: 1, audit: 1, events: 1 });
    expect(await contacts.readRecord(database(), String(item.id))).toEqual(item);
  });

  it('commits a resource with a JSON column in one statement too', async () => {
    // As the sequences' routes store them: neither audited nor announced on create.
    const { events: _announced, ...unannounced } = sequenceTable;
    const sequences = resourceStore(
      { ...unannounced, audited: { created: false, updated: false, deleted: true } },
      { clock, newId },
    );
    const { counted, statements, transactions } = counting();
    const { item } = await sequences.createRecord(counted, {
      actor,
      body: {
        name: 'Onboarding',
        steps: [{ action: 'EMAIL', delayHours: 1, tag: { b: 1, a: [2] } }],
      },
    });
    expect(statements).toHaveLength(1);
    expect(transactions).toHaveLength(0);
    expect(item).toMatchObject({ name: 'Onboarding', status: 'DRAFT' });
    expect(await sequences.readRecord(database(), String(item.id))).toEqual(item);
  });

  it('announces a JSON column as the row reads it back, in the same statement', async () => {
    const sequences = resourceStore(sequenceTable, { clock, newId });
    const { counted, statements } = counting();
    // Keys out of jsonb's order, numbers as JSON writes them: the event must equal the answer.
    const steps = [{ delayHours: 1e21, action: 'EMAIL', zeta: { b: [1, -0, 0.5], a: 'é"[' } }];
    const { item, pending } = await sequences.createRecord(counted, {
      actor,
      body: { name: 'S', steps },
    });
    expect(statements).toHaveLength(1);
    expect(pending).toBe(false);
    const { rows } = await database().query<{ data: unknown }>(
      'SELECT data FROM outbox_events WHERE event = $1',
      ['sequence.created'],
    );
    expect(rows.map((row) => row.data)).toEqual([item]);
    // The column's value as jsonb orders it, in the answer and in the event alike.
    expect(JSON.stringify((rows[0]?.data as { steps?: unknown } | undefined)?.steps)).toBe(
      JSON.stringify(item.steps),
    );
    expect(await stored(String(item.id))).toEqual({ rows: 0, audit: 1, events: 1 });
  });

  it("keeps each event's trace context, whichever create came first, traced or not", async () => {
    // A store of its own: the text of its first create, traced or not, is kept from the start.
    const traced = resourceStore(contactTable({ clock, newId }), { clock, newId });
    const requestSpan = {
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: TraceFlags.SAMPLED,
    };
    const create = async (lastName: string) =>
      String(
        (await traced.createRecord(database(), { actor, body: { firstName: 'Ada', lastName } }))
          .item.id,
      );
    const ids = [
      await create('Untraced'),
      await withActiveSpan(requestSpan, () => create('Traced')),
      await create('Untraced again'),
      await withActiveSpan(requestSpan, () => create('Traced again')),
    ];
    const { rows } = await database().query<{ id: string; traceparent: string | null }>(
      `SELECT e.data->>'id' AS id, t.traceparent FROM outbox_events AS e
         LEFT JOIN outbox_trace_contexts AS t ON t.event_id = e.id ORDER BY e.seq`,
    );
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    expect(rows).toEqual([
      { id: ids[0], traceparent: null },
      { id: ids[1], traceparent },
      { id: ids[2], traceparent: null },
      { id: ids[3], traceparent },
    ]);
    for (const id of ids) expect(await stored(id)).toEqual({ rows: 1, audit: 1, events: 1 });
  });

  it("sends one statement per create in the caller's transaction", async () => {
    const statements: string[] = [];
    const ids: string[] = [];
    await database().transaction(async (transaction) => {
      const counted: typeof transaction = Object.create(transaction);
      counted.query = (sql, params) => {
        statements.push(sql);
        return transaction.query(sql, params);
      };
      for (const firstName of ['Ada', 'Grace']) {
        const { item, pending } = await contacts.createRecord(database(), {
          actor,
          body: { firstName, lastName: 'L' },
          transaction: counted,
        });
        expect(pending).toBe(false);
        ids.push(String(item.id));
      }
    });
    expect(statements).toHaveLength(2);
    for (const id of ids) expect(await stored(id)).toEqual({ rows: 1, audit: 1, events: 1 });
  });

  it("runs in the caller's transaction when given one, and rolls back with it", async () => {
    let created: Record<string, unknown> | undefined;
    await expect(
      database().transaction(async (transaction) => {
        ({ item: created } = await contacts.createRecord(database(), {
          actor,
          body: { firstName: 'Grace', lastName: 'Hopper' },
          transaction,
        }));
        expect(await contacts.readRecord(transaction, String(created.id))).toEqual(created);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await stored(String(created?.id))).toEqual({ rows: 0, audit: 0, events: 0 });
  });
});

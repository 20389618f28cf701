import { describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { createIdGenerator } from '../ids.js';
import type { Database } from '../storage/database.js';
import { contactTable } from './contact-store.js';
import { resourceStore } from './resource-store.js';

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
    expect(item).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', lifecycle: 'LEAD' });
    // No endpoint takes contact.created here: the event was written dispatched.
    expect(pending).toBe(false);
    expect(await stored(String(item.id))).toEqual({ rows: 1, audit: 1, events: 1 });
    expect(await contacts.readRecord(database(), String(item.id))).toEqual(item);
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

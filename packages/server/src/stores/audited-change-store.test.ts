import { describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { createIdGenerator } from '../ids.js';
import type { Queryable } from '../storage/database.js';
import { recordChange } from './audited-change-store.js';

describe('recordChange', () => {
  const database = useTestDatabase();
  const clock = manualClock('2026-03-01T09:00:00.000Z');
  const newId = createIdGenerator({ now: () => clock.now() });
  const change = (id: string) => ({
    audit: {
      action: 'contact.created',
      actor: { type: 'service_account' as const, id: 'sa_1' },
      target: { type: 'contact', id },
      metadata: { fields: ['firstName'] },
    },
    event: { event: 'contact.created' as const, data: { id, firstName: 'Ada' } },
  });

  it('writes the audit entry and the outbox event in one statement, and answers both', async () => {
    const statements: string[] = [];
    const written = await database().transaction((transaction) => {
      const counted: Queryable = {
        query: (sql, params) => {
          statements.push(sql);
          return transaction.query(sql, params);
        },
      };
      return recordChange(counted, change('con_1'), { clock, newId });
    });
    expect(statements).toHaveLength(1);
    // No notification in it: PostgreSQL would serialize the commits of every create on it. The
    // instance announces committed events itself, coalesced (createOutboxAnnouncer).
    expect(statements[0]).not.toMatch(/pg_notify/i);
    expect(written).toEqual({
      auditEntry: {
        id: expect.stringMatching(/^aud_/),
        occurredAt: '2026-03-01T09:00:00.000Z',
        action: 'contact.created',
        actor: { type: 'service_account', id: 'sa_1' },
        target: { type: 'contact', id: 'con_1' },
        metadata: { fields: ['firstName'] },
      },
      event: {
        id: expect.stringMatching(/^evt_/),
        event: 'contact.created',
        createdAt: '2026-03-01T09:00:00.000Z',
        data: { id: 'con_1', firstName: 'Ada' },
      },
    });
    const audit = await database().query(
      `SELECT id, action, actor_type, actor_id, target_type, target_id, metadata
         FROM audit_entries WHERE target_id = 'con_1'`,
    );
    expect(audit.rows).toEqual([
      {
        id: written.auditEntry.id,
        action: 'contact.created',
        actor_type: 'service_account',
        actor_id: 'sa_1',
        target_type: 'contact',
        target_id: 'con_1',
        metadata: { fields: ['firstName'] },
      },
    ]);
    const events = await database().query(
      `SELECT id, event, data, created_at FROM outbox_events WHERE data->>'id' = 'con_1'`,
    );
    expect(events.rows).toEqual([
      {
        id: written.event.id,
        event: 'contact.created',
        data: { id: 'con_1', firstName: 'Ada' },
        created_at: '2026-03-01T09:00:00.000Z',
      },
    ]);
  });

  it('leaves neither row when its transaction rolls back', async () => {
    await expect(
      database().transaction(async (transaction) => {
        await recordChange(transaction, change('con_2'), { clock, newId });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const { rows } = await database().query(
      `SELECT (SELECT count(*)::int FROM audit_entries WHERE target_id = 'con_2') AS audit,
              (SELECT count(*)::int FROM outbox_events WHERE data->>'id' = 'con_2') AS events`,
    );
    expect(rows).toEqual([{ audit: 0, events: 0 }]);
  });
});

import { describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { createIdGenerator } from '../ids.js';
import { findLatestAuditEntry, insertAuditEntry } from './audit-store.js';

describe('findLatestAuditEntry', () => {
  const database = useTestDatabase();

  it('finds the newest entry of an action on one target, or nothing', async () => {
    const clock = manualClock('2026-03-01T09:00:00Z');
    const newId = createIdGenerator({ now: () => clock.now() });
    const record = (action: string, id: string) =>
      insertAuditEntry(
        database(),
        { action, actor: { type: 'operator' }, target: { type: 'webhook_endpoint', id } },
        { clock, newId },
      );
    await record('endpoint.secret_rotated', 'we_a');
    clock.advance(60_000);
    const newest = await record('endpoint.secret_rotated', 'we_a');
    clock.advance(60_000);
    await record('endpoint.disabled', 'we_a');
    await record('endpoint.secret_rotated', 'we_b');
    const target = { type: 'webhook_endpoint', id: 'we_a' };
    const found = await findLatestAuditEntry(database(), {
      action: 'endpoint.secret_rotated',
      target,
    });
    expect(found?.id).toBe(newest.id);
    expect(Date.parse(found?.occurredAt ?? '')).toBe(Date.parse('2026-03-01T09:01:00Z'));
    expect(
      await findLatestAuditEntry(database(), { action: 'endpoint.enabled', target }),
    ).toBeUndefined();
  });
});

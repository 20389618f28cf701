import { describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { createIdGenerator } from '../ids.js';
import { createPortalLink, startPortalSession } from '../portal/portal-links.js';
import { pruneExpired, startRetentionSchedule } from './retention.js';

const DAY = 24 * 60 * 60 * 1000;

describe('retention', () => {
  const database = useTestDatabase();

  async function seedAt(at: Date, suffix: string) {
    const db = database();
    await db.query(
      `INSERT INTO webhook_endpoints (id, url, events, state, secret, created_at, updated_at)
       VALUES ('we_1', 'https://example.com/hook', '{contact.created}', 'active', 'whsec_x',
               now(), now()) ON CONFLICT DO NOTHING`,
    );
    await db.query(
      `INSERT INTO ehr_receipts (id, vendor, verdict, raw_body, headers, received_at)
       VALUES ($1, 'nobody', 'unknown_vendor', '\\x', '{}', $2)`,
      [`rcpt_${suffix}`, at],
    );
    await db.query(
      `INSERT INTO ehr_delivery_digests (vendor, digest, receipt_id, received_at)
       VALUES ('athenahealth', sha256(convert_to($1, 'UTF8')), $1, $2)`,
      [`rcpt_${suffix}`, at],
    );
    await db.query(
      `INSERT INTO outbox_events (id, event, data, created_at, dispatched_at)
       VALUES ($1, 'contact.created', '{}', $2, $2), ($3, 'contact.created', '{}', $2, $2)`,
      [`evt_${suffix}`, at, `evt_pending_${suffix}`],
    );
    await db.query(
      `INSERT INTO deliveries (id, event_id, endpoint_id, state, created_at, next_attempt_at)
       VALUES ($1, $2, 'we_1', 'delivered', $3, NULL), ($4, $5, 'we_1', 'pending', $3, $3)`,
      [`dlv_${suffix}`, `evt_${suffix}`, at, `dlv_pending_${suffix}`, `evt_pending_${suffix}`],
    );
    await db.query(
      `INSERT INTO delivery_attempts (delivery_id, started_at, duration_ms, status)
       VALUES ($1, $2, 5, 200), ($1, $2, 5, 500)`,
      [`dlv_${suffix}`, at],
    );
    await db.query(
      `INSERT INTO idempotency_keys (account_id, key, method, path, request_sha256, status,
                                     response_body, created_at)
       VALUES ('sa_1', $1, 'POST', '/api/contacts', '\\x00', 201, '{}', $2)`,
      [`key_${suffix}`, at],
    );
  }

  async function ids(table: string, column = 'id') {
    const { rows } = await database().query<{ id: string }>(
      `SELECT ${column} AS id FROM ${table} ORDER BY 1`,
    );
    return rows.map((row) => row.id);
  }

  it('prunes by age what outlived its retention, and keeps the rest and everything pending', async () => {
    const clock = manualClock('2026-06-01T00:00:00.000Z');
    await seedAt(new Date(clock.now() - 31 * DAY), 'old');
    await seedAt(new Date(clock.now() - 2 * DAY), 'new');
    const result = await pruneExpired(database(), { now: clock.now() });
    expect(result).toMatchObject({
      ehrReceipts: 1,
      ehrDeliveryDigests: 1,
      deliveries: 1,
      deliveryAttempts: 2,
      outboxEvents: 1,
      idempotencyKeys: 2,
    });
    expect(await ids('ehr_receipts')).toEqual(['rcpt_new']);
    expect(await ids('ehr_delivery_digests', 'receipt_id')).toEqual(['rcpt_new']);
    // A pending delivery, however old, and its event stay.
    expect(await ids('deliveries')).toEqual(['dlv_new', 'dlv_pending_new', 'dlv_pending_old']);
    expect(await ids('outbox_events')).toEqual(['evt_new', 'evt_pending_new', 'evt_pending_old']);
    expect(await ids('delivery_attempts', 'delivery_id')).toEqual(['dlv_new', 'dlv_new']);
    // Idempotency records last 24 hours.
    expect(await ids('idempotency_keys', 'key')).toEqual([]);
    // A shorter policy takes more.
    await pruneExpired(database(), { now: clock.now(), policy: { receiptDays: 1 } });
    expect(await ids('ehr_receipts')).toEqual([]);
    await expect(
      pruneExpired(database(), { now: clock.now(), policy: { deliveryDays: 0 } }),
    ).rejects.toThrow(RangeError);
  });

  it('prunes used and expired portal links and expired portal sessions, and keeps the rest', async () => {
    const clock = manualClock('2026-06-01T00:00:00.000Z');
    const newId = createIdGenerator({ now: () => clock.now() });
    const link = (expiresInMinutes: number) =>
      createPortalLink(database(), {
        subscriber: 'acme',
        expiresInMinutes,
        publicUrl: 'https://crm.example.org',
        actor: { type: 'operator' },
        clock,
        newId,
      });
    const used = await link(60);
    const session = await startPortalSession(database(), used.url.split('/').at(-1) as string, {
      clock,
      newId,
    });
    const expiring = await link(1);
    const kept = await link(60);
    clock.advance(2 * 60_000);
    expect(await pruneExpired(database(), { now: clock.now() })).toMatchObject({
      portalLinks: 2,
      portalSessions: 0,
    });
    expect(await ids('portal_links')).toEqual([kept.id]);
    expect(await ids('portal_sessions')).toEqual([session?.id]);
    expect(expiring.id).not.toBe(kept.id);
    clock.advance(8 * 60 * 60_000);
    expect(await pruneExpired(database(), { now: clock.now() })).toMatchObject({
      portalLinks: 1,
      portalSessions: 1,
    });
    expect(await ids('portal_sessions')).toEqual([]);
  });

  it('prunes tombstones older than tombstoneDays and records the change feed horizon', async () => {
    const clock = manualClock('2026-06-01T00:00:00.000Z');
    const db = database();
    await db.query(
      `INSERT INTO contact_tombstones (id, deleted_at)
       VALUES ('con_old', $1), ('con_older', $2), ('con_new', $3)`,
      [
        new Date(clock.now() - 91 * DAY),
        new Date(clock.now() - 200 * DAY),
        new Date(clock.now() - 89 * DAY),
      ],
    );
    const { rows: numbered } = await db.query<{ id: string; seq: string }>(
      'SELECT id, change_seq::text AS seq FROM contact_tombstones ORDER BY change_seq',
    );
    // 30 days of everything else would have taken them all: tombstones have their own 90.
    expect((await pruneExpired(db, { now: clock.now() })).contactTombstones).toBe(2);
    expect(await ids('contact_tombstones')).toEqual(['con_new']);
    const horizon = async () =>
      (
        await db.query<{ feed: string; seq: string; before: string }>(
          `SELECT feed, pruned_through_seq::text AS seq, pruned_before AS before
             FROM change_feed_horizons`,
        )
      ).rows;
    const highestPruned = numbered.filter((row) => row.id !== 'con_new').at(-1)?.seq;
    expect(await horizon()).toEqual([
      { feed: 'contacts', seq: highestPruned, before: '2026-03-03T00:00:00.000Z' },
    ]);
    // Nothing to prune: the horizon stays where it is.
    clock.advance(DAY / 2);
    expect((await pruneExpired(db, { now: clock.now() })).contactTombstones).toBe(0);
    expect(await horizon()).toEqual([
      { feed: 'contacts', seq: highestPruned, before: '2026-03-03T00:00:00.000Z' },
    ]);
    // A shorter policy takes more and moves it on.
    expect(
      (await pruneExpired(db, { now: clock.now(), policy: { tombstoneDays: 30 } }))
        .contactTombstones,
    ).toBe(1);
    expect((await horizon())[0]?.before).toBe('2026-05-02T12:00:00.000Z');
    await expect(
      pruneExpired(db, { now: clock.now(), policy: { tombstoneDays: 0 } }),
    ).rejects.toThrow(RangeError);
  });

  it('runs once at start, then on its schedule, by the injected clock', async () => {
    const clock = manualClock('2026-06-01T00:00:00.000Z');
    let scheduled: (() => void) | undefined;
    let interval = 0;
    const results: number[] = [];
    await seedAt(new Date(clock.now() - 29 * DAY), 'a');
    const schedule = startRetentionSchedule({
      database: database(),
      clock,
      intervalMs: 3_600_000,
      setInterval: (run, ms) => {
        scheduled = run;
        interval = ms;
        return 1;
      },
      clearInterval: () => {},
      onPruned: (result) => results.push(result.ehrReceipts),
    });
    await schedule.runNow();
    expect(interval).toBe(3_600_000);
    expect(await ids('ehr_receipts')).toEqual(['rcpt_a']);
    // Two days later the receipt is 31 days old: the next scheduled run takes it.
    clock.advance(2 * DAY);
    scheduled?.();
    await schedule.runNow();
    expect(await ids('ehr_receipts')).toEqual([]);
    expect(results).toContain(1);
    await schedule.stop();
  });
});

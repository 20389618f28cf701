import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../test/support/database.js';
import { readEndpointHealth } from './endpoint-attempt-stats-store.js';
import {
  countAttemptsByHour,
  countReceiptsByHour,
  listRecentBadSignatures,
  listTokensExpiringSoon,
  listUsersNotSignedIn,
  OVERVIEW_HOURS,
  overviewHours,
} from './overview-store.js';

// 2026-03-01 12:30 UTC: the overview's hours are 2026-02-28 13:00 to 2026-03-01 13:00.
const now = Date.parse('2026-03-01T12:30:00Z');
const DAY_MS = 86_400_000;

describe('the overview store', () => {
  const database = useTestDatabase();

  async function endpoint(id: string, extra: { failingSince?: string; disabled?: string } = {}) {
    await database().query(
      `INSERT INTO webhook_endpoints (id, url, events, state, secret, created_at, updated_at,
                                      failing_since, disabled_reason)
       VALUES ($1, $2, ARRAY['contact.created'], $3, 'whsec_a', $4, $4, $5, $6)`,
      [
        id,
        `https://${id}.example/hook`,
        extra.disabled ? 'disabled' : 'active',
        '2026-02-01T00:00:00Z',
        extra.failingSince ?? null,
        extra.disabled ?? null,
      ],
    );
  }

  async function delivery(
    id: string,
    endpointId: string,
    state: 'pending' | 'delivered' | 'dead',
    attempts: readonly { at: string; status: number | null; ms: number }[],
  ) {
    await database().query(
      `INSERT INTO outbox_events (id, event, data, created_at)
       VALUES ($1, 'contact.created', '{}', '2026-02-28T00:00:00Z') ON CONFLICT DO NOTHING`,
      [`evt_${id}`],
    );
    await database().query(
      `INSERT INTO deliveries (id, event_id, endpoint_id, state, attempts, created_at, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, '2026-02-28T00:00:00Z', $6)`,
      [
        id,
        `evt_${id}`,
        endpointId,
        state,
        attempts.length,
        state === 'pending' ? '2026-03-01T13:00:00Z' : null,
      ],
    );
    for (const attempt of attempts) {
      await database().query(
        `INSERT INTO delivery_attempts (delivery_id, started_at, duration_ms, status, error)
         VALUES ($1, $2, $3, $4, $5)`,
        [id, attempt.at, attempt.ms, attempt.status, attempt.status === null ? 'timeout' : null],
      );
    }
  }

  it('counts attempts per hour as delivered, failed (to be retried) and dead', async () => {
    await endpoint('we_a');
    // First hour (13:00 yesterday): a failure then success; the last hour (12:00): a dead end.
    await delivery('dlv_1', 'we_a', 'delivered', [
      { at: '2026-02-28T13:05:00Z', status: 500, ms: 10 },
      { at: '2026-02-28T13:40:00Z', status: 204, ms: 20 },
    ]);
    await delivery('dlv_2', 'we_a', 'dead', [
      { at: '2026-03-01T11:10:00Z', status: null, ms: 30_000 },
      { at: '2026-03-01T12:10:00Z', status: 503, ms: 15 },
    ]);
    // Still pending: its failure is to be retried. Before the period: not counted.
    await delivery('dlv_3', 'we_a', 'pending', [
      { at: '2026-03-01T12:29:00Z', status: 500, ms: 5 },
    ]);
    await delivery('dlv_4', 'we_a', 'delivered', [
      { at: '2026-02-28T12:59:59Z', status: 200, ms: 5 },
    ]);

    const hours = await countAttemptsByHour(database(), { now });
    expect(hours).toHaveLength(OVERVIEW_HOURS);
    expect(hours[0]).toEqual({
      hourStart: '2026-02-28T13:00:00.000Z',
      counts: { delivered: 1, failed: 1, dead: 0 },
    });
    expect(hours[22]).toEqual({
      hourStart: '2026-03-01T11:00:00.000Z',
      counts: { delivered: 0, failed: 1, dead: 0 },
    });
    expect(hours[23]).toEqual({
      hourStart: '2026-03-01T12:00:00.000Z',
      counts: { delivered: 0, failed: 1, dead: 1 },
    });
    const total = hours.reduce((sum, hour) => sum + hour.counts.delivered + hour.counts.failed, 0);
    expect(total).toBe(4);
  });

  it('counts receipts per hour as accepted, bad signature and replay', async () => {
    const receipts: [string, string][] = [
      ['valid', '2026-03-01T12:00:00Z'],
      ['valid', '2026-03-01T12:29:59Z'],
      ['invalid_signature', '2026-03-01T12:15:00Z'],
      ['replayed', '2026-02-28T13:00:00Z'],
      ['unknown_vendor', '2026-03-01T12:15:00Z'],
      ['valid', '2026-02-28T12:59:59Z'],
    ];
    for (const [index, [verdict, at]] of receipts.entries()) {
      await database().query(
        `INSERT INTO ehr_receipts (id, vendor, verdict, raw_body, headers, received_at)
         VALUES ($1, 'athenahealth', $2, '\\x', '{}', $3)`,
        [`rcpt_${index}`, verdict, at],
      );
    }
    const hours = await countReceiptsByHour(database(), { now });
    expect(hours[23]?.counts).toEqual({ accepted: 2, badSignature: 1, replay: 0 });
    expect(hours[0]?.counts).toEqual({ accepted: 0, badSignature: 0, replay: 1 });
    expect(hours.slice(1, 23).every((hour) => hour.counts.accepted === 0)).toBe(true);

    const bad = await listRecentBadSignatures(database(), { now, limit: 5 });
    expect(bad).toEqual([
      { id: 'rcpt_2', vendor: 'athenahealth', receivedAt: '2026-03-01T12:15:00.000Z' },
    ]);
  });

  it('reads each endpoint’s success rate and p95, the failing and disabled first', async () => {
    await endpoint('we_ok');
    await endpoint('we_failing', { failingSince: '2026-03-01T06:00:00Z' });
    await endpoint('we_gone', { disabled: 'gone', failingSince: '2026-02-27T00:00:00Z' });
    const durations = Array.from({ length: 20 }, (_, index) => (index + 1) * 10);
    await delivery(
      'dlv_ok',
      'we_ok',
      'delivered',
      durations.map((ms, index) => ({
        at: `2026-03-01T10:${String(index).padStart(2, '0')}:00Z`,
        status: index < 15 ? 200 : 500,
        ms,
      })),
    );
    // A day and a minute ago: outside the 24 hours.
    await delivery('dlv_old', 'we_failing', 'dead', [
      { at: '2026-02-28T12:29:00Z', status: 200, ms: 99_999 },
    ]);

    const health = await readEndpointHealth(database(), { now, limit: 10 });
    expect(health.total).toBe(3);
    expect(health.endpoints.map((item) => item.id)).toEqual(['we_gone', 'we_failing', 'we_ok']);
    expect(health.endpoints[2]).toMatchObject({ attempts: 20, succeeded: 15, p95DurationMs: 190 });
    expect(health.endpoints[1]).toMatchObject({
      attempts: 0,
      succeeded: 0,
      p95DurationMs: null,
      failingSince: '2026-03-01T06:00:00.000Z',
    });
    expect(health.endpoints[0]).toMatchObject({ state: 'disabled', disabledReason: 'gone' });
    expect((await readEndpointHealth(database(), { now, limit: 1 })).endpoints).toHaveLength(1);
  });

  it('lists working tokens expiring within the window and users not signed in', async () => {
    await database().query(
      `INSERT INTO service_accounts (id, name, role, created_at, disabled_at)
       VALUES ('sa_1', 'CRM sync', 'AGENT', now(), NULL), ('sa_2', 'Old', 'AGENT', now(), now())`,
    );
    const token = (id: string, account: string, expires: number | null, revoked = false) =>
      database().query(
        `INSERT INTO tokens (id, account_id, secret_sha256, created_at, expires_at, revoked_at, label)
         VALUES ($1, $2, decode(repeat('00', 32), 'hex'), now(), $3, $4, $1)`,
        [id, account, expires === null ? null : new Date(expires), revoked ? new Date(now) : null],
      );
    await token('tok_soon', 'sa_1', now + 2 * DAY_MS);
    await token('tok_sooner', 'sa_1', now + DAY_MS);
    await token('tok_later', 'sa_1', now + 8 * DAY_MS);
    await token('tok_never', 'sa_1', null);
    await token('tok_expired', 'sa_1', now - 1);
    await token('tok_revoked', 'sa_1', now + DAY_MS, true);
    await token('tok_disabled_account', 'sa_2', now + DAY_MS);
    const expiring = await listTokensExpiringSoon(database(), {
      now,
      withinMs: 7 * DAY_MS,
      limit: 10,
    });
    expect(expiring.map((item) => item.id)).toEqual(['tok_sooner', 'tok_soon']);
    expect(expiring[0]).toMatchObject({ accountId: 'sa_1', accountName: 'CRM sync' });

    await database().query(
      `INSERT INTO users (id, email, name, role, created_at, password_hash, disabled_at)
       VALUES ('usr_1', 'ada@example.com', 'Ada', 'AGENT', '2026-02-01T00:00:00Z', NULL, NULL),
              ('usr_2', 'bo@example.com', 'Bo', 'AGENT', now(), 'hash', NULL),
              ('usr_3', 'cy@example.com', 'Cy', 'AGENT', now(), NULL, now())`,
    );
    expect(await listUsersNotSignedIn(database(), { limit: 10 })).toEqual([
      { id: 'usr_1', email: 'ada@example.com', name: 'Ada', invitedAt: '2026-02-01T00:00:00.000Z' },
    ]);
  });

  it('always shows 24 whole hours, the last one holding now', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_102_444_800_000 }), (at) => {
        const { start, end } = overviewHours(at);
        expect(end.getTime() - start.getTime()).toBe(OVERVIEW_HOURS * 3_600_000);
        expect(end.getTime() % 3_600_000).toBe(0);
        expect(at).toBeLessThan(end.getTime());
        expect(at).toBeGreaterThanOrEqual(end.getTime() - 3_600_000);
      }),
    );
  });
});

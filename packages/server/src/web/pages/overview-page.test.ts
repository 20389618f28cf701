import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { consoleBrowser } from '../../../test/support/console.js';
import { useTestServer } from '../../../test/support/server.js';
import type { Role } from '../../tokens/role.js';
import { ageText, successRate } from './overview-figures.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

describe('the overview (the start page)', () => {
  const server = useTestServer();

  // The clock is at 2026-03-01 09:00 UTC: the charts' last hour is 09:00, the first 10:00 the
  // day before.
  async function seed() {
    const { database, clock, accounts } = server();
    const at = (offsetMs: number) => new Date(clock.now() + offsetMs);
    await database.query(
      `INSERT INTO webhook_endpoints (id, url, events, state, secret, created_at, updated_at,
                                      failing_since)
       VALUES ('we_ok', 'https://ok.example/hooks', ARRAY['contact.created'], 'active', 'whsec_a', $1, $1, NULL),
              ('we_bad', 'https://bad.example/<b>hooks</b>', ARRAY['contact.created'], 'active', 'whsec_b', $1, $1, $2)`,
      [at(-30 * DAY_MS), at(-3 * HOUR_MS)],
    );
    await database.query(
      `INSERT INTO outbox_events (id, event, data, created_at)
       VALUES ('evt_1', 'contact.created', '{}', $1), ('evt_2', 'contact.created', '{}', $2)`,
      [at(-2 * DAY_MS), at(-90 * 60_000)],
    );
    await database.query(
      `UPDATE outbox_events SET dispatched_at = $2, fan_out_to = NULL WHERE id = $1`,
      ['evt_1', at(-2 * DAY_MS)],
    );
    await database.query(
      `INSERT INTO deliveries (id, event_id, endpoint_id, state, attempts, created_at, next_attempt_at)
       VALUES ('dlv_ok', 'evt_1', 'we_ok', 'delivered', 1, $1, NULL),
              ('dlv_dead', 'evt_1', 'we_bad', 'dead', 2, $1, NULL)`,
      [at(-2 * DAY_MS)],
    );
    await database.query(
      `INSERT INTO delivery_attempts (delivery_id, started_at, duration_ms, status)
       VALUES ('dlv_ok', $1, 120, 200), ('dlv_dead', $2, 800, 500), ('dlv_dead', $3, 900, 500)`,
      [at(-30 * 60_000), at(-2 * HOUR_MS), at(-10 * 60_000)],
    );
    await database.query(
      `INSERT INTO ehr_receipts (id, vendor, verdict, raw_body, headers, received_at)
       VALUES ('rcpt_1', 'athenahealth', 'valid', '\\x', '{}', $1),
              ('rcpt_2', 'athenahealth', 'invalid_signature', '\\x', '{}', $1),
              ('rcpt_3', 'akute', 'replayed', '\\x', '{}', $2)`,
      [at(-5 * 60_000), at(-20 * HOUR_MS)],
    );
    const account = await accounts.createAccount({ name: 'CRM sync', role: 'AGENT' });
    await accounts.issueToken({
      accountId: account.id,
      label: 'ci deploy',
      ttlSeconds: 3 * 86_400,
    });
    await database.query(
      `INSERT INTO users (id, email, name, role, created_at)
       VALUES ('usr_invited', 'grace@example.com', 'Grace', 'AGENT', $1)`,
      [at(-DAY_MS)],
    );
    return { accountId: account.id };
  }

  async function overviewAs(role: Role): Promise<string> {
    const browser = await consoleBrowser(server(), role);
    const response = await browser.get('/');
    expect(response.statusCode).toBe(200);
    return response.body;
  }

  it('shows an ADMIN delivery health, both charts and what needs attention, linked', async () => {
    const { accountId } = await seed();
    const html = await overviewAs('ADMIN');
    expect(html).toContain('<h1>Overview</h1>');
    expect(html).toContain('As of <span class="nowrap">2026-03-01 09:00:00 UTC</span>');
    // The outbox: one event not fanned out, written 90 minutes ago.
    expect(html).toMatch(
      /Outbox: <strong>1<\/strong> event waiting[^<]*the oldest written 1 h 30 min ago/,
    );
    // Failing first, with since when; each endpoint's rate and 95th percentile.
    const failing = html.indexOf('https://bad.example/&lt;b&gt;hooks&lt;/b&gt;');
    const ok = html.indexOf('https://ok.example/hooks');
    expect(failing).toBeGreaterThan(0);
    expect(failing).toBeLessThan(ok);
    expect(html).not.toContain('<b>hooks</b>');
    expect(html).toMatch(
      /href="\/webhook-endpoints\/we_bad"[^>]*>[^<]*<\/a><\/td>\s*<td><span class="badge warning">Failing<\/span> <span class="muted">since <span class="nowrap">2026-03-01 06:00:00 UTC<\/span><\/span><\/td>\s*<td>2<\/td>\s*<td>0 %<\/td>\s*<td>900 ms<\/td>/,
    );
    expect(html).toMatch(
      /we_ok"[^>]*>[^<]*<\/a><\/td>\s*<td><span class="badge ok">Active<\/span><\/td>\s*<td>1<\/td>\s*<td>100 %<\/td>\s*<td>120 ms<\/td>/,
    );
    expect(html).toContain("95th percentile of the attempts' durations");
    // The charts' figures: totals in the captions, every hour in the tables.
    expect(html).toContain('1 delivered, 1 failed, to be retried, 1 dead, given up.');
    expect(html).toContain('1 accepted, 1 bad signature, 1 replay.');
    expect(html).toMatch(
      /<th scope="row">2026-03-01 08:00<\/th><td>1<\/td><td>0<\/td><td>1<\/td><td>2<\/td>/,
    );
    expect(html).toMatch(
      /<th scope="row">2026-03-01 07:00<\/th><td>0<\/td><td>1<\/td><td>0<\/td><td>1<\/td>/,
    );
    expect(html).toMatch(
      /<th scope="row">2026-02-28 13:00<\/th><td>0<\/td><td>0<\/td><td>1<\/td><td>1<\/td>/,
    );
    // Needs attention, each linking to its page.
    expect(html).toContain(`href="/service-accounts/${accountId}">CRM sync</a>: ci deploy expires`);
    expect(html).toContain('in <span class="nowrap">3 d</span>');
    expect(html).toContain(
      'href="/ehr-receipts/rcpt_2">athenahealth, <span class="nowrap">2026-03-01 08:55:00 UTC</span></a>',
    );
    expect(html).toContain('href="/users">Grace</a>');
    expect(html).toContain('Endpoints failing');
    // No inline style anywhere: the CSP allows the stylesheet only.
    expect(html).not.toMatch(/\sstyle=/);
  });

  it('shows a MANAGER receipts and bad signatures, never endpoints, tokens or users', async () => {
    await seed();
    const html = await overviewAs('MANAGER');
    expect(html).toContain('EHR receipts per hour');
    expect(html).toContain('href="/ehr-receipts/rcpt_2"');
    for (const hidden of [
      'Delivery health',
      'Delivery attempts per hour',
      'Outbox',
      'bad.example',
      'ok.example',
      'CRM sync',
      'grace@example.com',
      'Endpoints failing',
    ]) {
      expect(html, hidden).not.toContain(hidden);
    }
  });

  it.each(['AGENT', 'READONLY'] as const)(
    'shows the %s role no panel it may not read',
    async (role) => {
      await seed();
      const html = await overviewAs(role);
      for (const hidden of [
        'Delivery health',
        'EHR receipts per hour',
        'Needs attention',
        'rcpt_2',
      ]) {
        expect(html, hidden).not.toContain(hidden);
      }
      // Every role reads the data: the overview never says it has nothing to open.
      expect(html).not.toContain('Your role has no settings pages.');
      expect(html).toContain('href="/contacts"');
    },
  );

  it('says so when nothing needs attention, and draws empty charts with zeros', async () => {
    const html = await overviewAs('ADMIN');
    expect(html).toContain('Nothing needs you right now.');
    expect(html).toContain('0 delivered, 0 failed, to be retried, 0 dead, given up.');
    expect(html).toContain('No webhook endpoint yet.');
    expect(html).toContain(
      'Outbox: <strong>0</strong> events waiting to be fanned out to deliveries.',
    );
  });

  it('sends the signed out to sign in', async () => {
    const response = await server().app.inject({ method: 'GET', url: '/' });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/signin');
  });
});

describe('ageText and successRate', () => {
  it('reads a duration in its two largest units, rounded down', () => {
    expect(ageText(0)).toBe('0 s');
    expect(ageText(59_999)).toBe('59 s');
    expect(ageText(90 * 60_000)).toBe('1 h 30 min');
    expect(ageText(3 * DAY_MS)).toBe('3 d');
    expect(ageText(DAY_MS + 5 * HOUR_MS + 59 * 60_000)).toBe('1 d 5 h');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 * DAY_MS }), (ms) => {
        expect(ageText(ms)).toMatch(/^\d+ (s|min|h|d)( \d+ (min|h))?$/);
      }),
    );
  });

  it('never rounds a rate up to 100 % while an attempt failed', () => {
    expect(successRate(0, 0)).toBe('—');
    expect(successRate(1999, 2000)).toBe('99.9 %');
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.nat(), (attempts, failed) => {
        const succeeded = Math.max(0, attempts - (failed % attempts) - 1);
        expect(successRate(succeeded, attempts)).not.toBe('100 %');
      }),
    );
  });
});

// The overview (the console's start page) in headless Chromium, on seeded data: deliveries of
// each outcome, EHR receipts of each outcome, a token expiring in two days, a failing endpoint
// and a user invited. The figures shown are those seeded; axe finds nothing serious; it works
// without JavaScript; on a 375-pixel screen no word breaks and nothing is wider than the screen.
// Screenshots: test-output/screenshots/overview-1280.png and overview-375.png.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIdGenerator } from '../src/ids.js';
import { createAccountStore } from '../src/tokens/account-store.js';
import { inviteUser } from '../src/users/user-actions.js';
import {
  type BrowserServer,
  browserAvailable,
  createTestUser,
  saveScreenshot,
  seriousViolations,
  signIn,
  startBrowserServer,
  useBrowser,
} from './support/browser.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

// The words of the page's content that the browser laid out on more than one line: a word
// broken inside (a URL wrapping every few characters) shows up here.
const brokenWords = `(() => {
  const broken = [];
  const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    if (!element || element.closest('details:not([open]), svg, .visually-hidden')) continue;
    for (const match of node.textContent.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const lines = new Set([...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top)));
      if (lines.size > 1) broken.push(match[0] + ' in ' + element.tagName.toLowerCase() + '.' + element.className);
    }
  }
  return broken;
})()`;

describe.skipIf(!browserAvailable)('the overview in a browser', { timeout: 240_000 }, () => {
  const browser = useBrowser();
  let server: BrowserServer;

  beforeAll(async () => {
    server = await startBrowserServer({ rateLimit: false });
    // 2026-03-01 09:20 UTC: the charts run from 10:00 the day before to the 09:00 hour.
    server.clock.set('2026-03-01T09:20:00.000Z');
    const { database, clock } = server;
    const newId = createIdGenerator({ now: () => clock.now() });
    const at = (offsetMs: number) => new Date(clock.now() + offsetMs);

    await database.query(
      `INSERT INTO webhook_endpoints (id, url, events, state, secret, created_at, updated_at,
                                      failing_since, disabled_reason)
       VALUES ('we_crm', 'https://crm.example.com/webhooks/followup', ARRAY['contact.created'],
               'active', 'whsec_a', $1, $1, NULL, NULL),
              ('we_billing', 'https://billing.internal.example.org/api/v2/incoming/followup-events',
               ARRAY['contact.created'], 'active', 'whsec_b', $1, $1, $2, NULL),
              ('we_old', 'https://legacy.example.net/hooks', ARRAY['contact.created'],
               'disabled', 'whsec_c', $1, $3, $4, 'gone')`,
      [at(-30 * DAY_MS), at(-5 * HOUR_MS), at(-2 * DAY_MS), at(-3 * DAY_MS)],
    );
    // Two events not fanned out yet, the oldest 12 minutes ago.
    await database.query(
      `INSERT INTO outbox_events (id, event, data, created_at)
       VALUES ('evt_2', 'contact.created', '{}', $1), ('evt_3', 'contact.created', '{}', $2)`,
      [at(-12 * MINUTE_MS), at(-MINUTE_MS)],
    );
    // we_crm: 4 delivered at 08:xx (durations 100 to 400 ms), 1 failed to be retried at 06:xx.
    // we_billing: 1 dead at 07:xx after a failure at 05:xx.
    const deliveries: [string, string, string, [number, number | null, number][]][] = [
      ['dlv_1', 'we_crm', 'delivered', [[-60 * MINUTE_MS, 200, 100]]],
      ['dlv_2', 'we_crm', 'delivered', [[-59 * MINUTE_MS, 200, 200]]],
      ['dlv_3', 'we_crm', 'delivered', [[-58 * MINUTE_MS, 204, 300]]],
      ['dlv_4', 'we_crm', 'delivered', [[-57 * MINUTE_MS, 200, 400]]],
      ['dlv_5', 'we_crm', 'pending', [[-3 * HOUR_MS, 503, 50]]],
      [
        'dlv_6',
        'we_billing',
        'dead',
        [
          [-4 * HOUR_MS, null, 10_000],
          [-2 * HOUR_MS, 500, 30],
        ],
      ],
    ];
    for (const [id, endpoint, state, attempts] of deliveries) {
      await database.query(
        `INSERT INTO outbox_events (id, event, data, created_at, dispatched_at)
         VALUES ($1, 'contact.created', '{}', $2, $2)`,
        [`evt_${id}`, at(-DAY_MS)],
      );
      await database.query(
        `INSERT INTO deliveries (id, event_id, endpoint_id, state, attempts, created_at, next_attempt_at)
         VALUES ($1, 'evt_' || $1, $2, $3, $4, $5, $6)`,
        [
          id,
          endpoint,
          state,
          attempts.length,
          at(-DAY_MS),
          state === 'pending' ? at(HOUR_MS) : null,
        ],
      );
      for (const [offset, status, duration] of attempts) {
        await database.query(
          `INSERT INTO delivery_attempts (delivery_id, started_at, duration_ms, status, error)
           VALUES ($1, $2, $3, $4, $5)`,
          [id, at(offset), duration, status, status === null ? 'timeout' : null],
        );
      }
    }
    // Receipts: 3 accepted, 2 bad signatures, 1 replay.
    const receipts: [string, number][] = [
      ['valid', -10 * MINUTE_MS],
      ['valid', -70 * MINUTE_MS],
      ['valid', -70 * MINUTE_MS],
      ['invalid_signature', -15 * MINUTE_MS],
      ['invalid_signature', -6 * HOUR_MS],
      ['replayed', -70 * MINUTE_MS],
    ];
    for (const [index, [verdict, offset]] of receipts.entries()) {
      await database.query(
        `INSERT INTO ehr_receipts (id, vendor, verdict, raw_body, headers, received_at)
         VALUES ($1, 'athenahealth', $2, '\\x', '{}', $3)`,
        [`rcpt_${index}`, verdict, at(offset)],
      );
    }
    const accounts = createAccountStore({ database, clock, newId });
    const account = await accounts.createAccount({ name: 'Nightly export', role: 'READONLY' });
    await accounts.issueToken({
      accountId: account.id,
      label: 'export job',
      ttlSeconds: 2 * 86_400,
    });
    await inviteUser(
      { database, clock, newId, actor: { type: 'operator' } },
      {
        email: 'grace@example.com',
        role: 'MANAGER',
        name: 'Grace Hopper',
        publicUrl: server.origin,
      },
    );
  });

  afterAll(async () => {
    await server?.close();
  });

  async function signedIn(
    role: 'ADMIN' | 'MANAGER',
    options: { width?: number; javaScript?: boolean } = {},
  ): Promise<Page> {
    const context = await browser().newContext({
      viewport: { width: options.width ?? 1280, height: 900 },
      javaScriptEnabled: options.javaScript ?? true,
    });
    const page = await context.newPage();
    // A figure or a control that is not there fails in seconds, not at the test's timeout.
    page.setDefaultTimeout(15_000);
    await signIn(page, server, await createTestUser(server, role));
    // Signing in leads to the overview: it is loaded once.
    if (new URL(page.url()).pathname !== '/') await page.goto(`${server.origin}/`);
    return page;
  }

  it('shows an ADMIN the figures seeded, and passes axe', async () => {
    const page = await signedIn('ADMIN');
    const main = page.locator('main');
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Overview');
    expect(await main.innerText()).toContain(
      'Outbox: 2 events waiting to be fanned out to deliveries, the oldest written 12 min ago',
    );

    // The endpoints: failing and disabled first, with since when; each rate and p95 as seeded.
    const rows = await page
      .getByRole('region', { name: 'Delivery health by endpoint' })
      .locator('tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim())),
      );
    expect(rows).toEqual([
      [
        'https://legacy.example.net/hooks',
        'Disabled by the server since 2026-02-26 09:20:00 UTC',
        '0',
        '—',
        '—',
      ],
      [
        'https://billing.internal.example.org/api/v2/incoming/followup-events',
        'Failing since 2026-03-01 04:20:00 UTC',
        '2',
        '0 %',
        '10000 ms',
      ],
      ['https://crm.example.com/webhooks/followup', 'Active', '5', '80 %', '400 ms'],
    ]);

    // The charts' captions and their tables hold the seeded counts.
    const attempts = page.getByRole('figure', { name: /Delivery attempts per hour/ });
    expect(await attempts.locator('figcaption').innerText()).toContain(
      '4 delivered, 2 failed, to be retried, 1 dead, given up.',
    );
    const receipts = page.getByRole('figure', { name: /EHR receipts per hour/ });
    expect(await receipts.locator('figcaption').innerText()).toContain(
      '3 accepted, 2 bad signature, 1 replay.',
    );
    await receipts.getByText('Figures by hour').click();
    const hour = await receipts
      .locator('tr', { has: page.locator('th', { hasText: '2026-03-01 08:00' }) })
      .locator('td')
      .allInnerTexts();
    expect(hour).toEqual(['2', '0', '1', '3']);
    expect(await attempts.locator('svg[role="img"]').getAttribute('aria-label')).toContain(
      '4 delivered',
    );

    // Needs attention, each linking to its page.
    const attention = page.getByRole('region', { name: 'Needs attention' });
    const links = await attention
      .getByRole('link')
      .evaluateAll((anchors) =>
        anchors.map((anchor) => [anchor.textContent?.trim(), anchor.getAttribute('href')]),
      );
    expect(links.map(([, href]) => href)).toEqual([
      '/webhook-endpoints/we_old',
      '/webhook-endpoints/we_billing',
      expect.stringMatching(/^\/service-accounts\/sa_/),
      '/ehr-receipts/rcpt_3',
      '/ehr-receipts/rcpt_4',
      '/ehr-receipts?outcome=invalid_signature',
      '/users',
    ]);
    expect(await attention.innerText()).toContain('Nightly export: export job expires');
    expect(await attention.innerText()).toContain('Grace Hopper');

    expect(await seriousViolations(page)).toEqual([]);
    await saveScreenshot(page, 'overview-1280');
  });

  it('works without JavaScript: the charts, their figures and the links are HTML', async () => {
    const page = await signedIn('ADMIN', { javaScript: false });
    const receipts = page.getByRole('figure', { name: /EHR receipts per hour/ });
    expect(await receipts.locator('figcaption').innerText()).toContain(
      '3 accepted, 2 bad signature, 1 replay.',
    );
    expect(await receipts.locator('table').isVisible()).toBe(false);
    await receipts.getByText('Figures by hour').click();
    expect(await receipts.locator('table').isVisible()).toBe(true);
    await page.getByRole('link', { name: 'Every receipt with a bad signature' }).click();
    await page.waitForURL(/\/ehr-receipts\?outcome=invalid_signature$/);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('EHR receipts');
  });

  it('fits a 375-pixel screen: no word broken, nothing wider than the screen', async () => {
    const page = await signedIn('ADMIN', { width: 375 });
    expect(await page.evaluate<string[]>(brokenWords)).toEqual([]);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      375,
    );
    expect(await seriousViolations(page)).toEqual([]);
    await saveScreenshot(page, 'overview-375');
  });

  it('shows a MANAGER the receipts and bad signatures, never the endpoints', async () => {
    const page = await signedIn('MANAGER');
    const text = await page.locator('main').innerText();
    expect(text).toContain('3 accepted, 2 bad signature, 1 replay.');
    for (const hidden of ['Delivery health', 'crm.example.com', 'Nightly export', 'Grace Hopper']) {
      expect(text, hidden).not.toContain(hidden);
    }
    expect(await seriousViolations(page)).toEqual([]);
    await saveScreenshot(page, 'overview-manager');
  });
});

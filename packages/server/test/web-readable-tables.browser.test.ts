// The console's readable tables and pages in headless Chromium (test/support/browser.ts): ids
// shortened and never broken, action names whole, actors by name, a delivery's page (body,
// headers, attempts, Send again without JavaScript) and an endpoint's page, at 1280 and 375
// pixels, with axe. Screenshots: test-output/screenshots/readable-*.png.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryStore } from '../src/delivery/deliveries.js';
import { fanOutEvents } from '../src/delivery/fan-out.js';
import { createEndpointStore } from '../src/delivery/webhook-endpoints.js';
import { createIdGenerator } from '../src/ids.js';
import { recordOutboxEvent } from '../src/stores/outbox-store.js';
import { createAccountStore } from '../src/tokens/account-store.js';
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

// The elements that must never break across lines, and those broken: an inline element that
// wraps has more than one box.
const brokenWords = `(() => [...document.querySelectorAll('main .id, main .action, main .badge, main .kind, main .when')]
  .filter((element) => element.getClientRects().length > 1)
  .map((element) => element.textContent))()`;

describe.skipIf(!browserAvailable)('readable tables in a browser', { timeout: 240_000 }, () => {
  const browser = useBrowser();
  let server: BrowserServer;
  let endpointId: string;
  let deliveryId: string;

  beforeAll(async () => {
    server = await startBrowserServer({ rateLimit: false });
    const { database, clock } = server;
    const newId = createIdGenerator({ now: () => clock.now() });
    const endpoints = createEndpointStore({ database, clock, newId });
    const endpoint = await endpoints.add({
      url: 'https://crm.example.com/hooks/followup/incoming-webhooks/v2?tenant=acme-corporation-emea',
      events: ['contact.created', 'deal.updated'],
    });
    endpointId = endpoint.id;
    const accounts = createAccountStore({ database, clock, newId });
    const bot = await accounts.createAccount({ name: 'crm sync', role: 'ADMIN' });
    await endpoints.rotateSecret(endpoint.id, 86_400, { type: 'service_account', id: bot.id });
    await recordOutboxEvent(
      database,
      {
        event: 'contact.created',
        data: { id: newId('con'), firstName: 'Ada', lastName: 'Lovelace', lifecycle: 'lead' },
      },
      { clock, newId },
    );
    await fanOutEvents(database, { clock, newId });
    const [delivery] = await createDeliveryStore({ database, clock, newId }).list();
    deliveryId = delivery?.id as string;
    // Two attempts, as the worker records them: a 503, then a 200; delivered.
    await database.query(
      `INSERT INTO delivery_attempts (delivery_id, started_at, duration_ms, status, error, response_excerpt)
       VALUES ($1, $2, 41, 503, NULL, $3), ($1, $4, 87, 200, NULL, $5)`,
      [
        deliveryId,
        new Date(clock.now() - 60_000),
        Buffer.from('{"error":"busy, try again in a minute"}'),
        new Date(clock.now()),
        Buffer.from('{"received":true}'),
      ],
    );
    await database.query(
      `UPDATE deliveries SET state = 'delivered', attempts = 2, delivered_at = $2,
         next_attempt_at = NULL, last_status = 200 WHERE id = $1`,
      [deliveryId, new Date(clock.now())],
    );
    clock.advance(2 * 3_600_000);
  });
  afterAll(async () => {
    await server?.close();
  });

  async function signedInPage(options: { width: number; javaScript?: boolean }): Promise<Page> {
    const context = await browser().newContext({
      viewport: { width: options.width, height: 900 },
      javaScriptEnabled: options.javaScript ?? true,
    });
    const page = await context.newPage();
    const user = await createTestUser(server, 'ADMIN', { name: 'Ada Lovelace' });
    await signIn(page, server, user);
    return page;
  }

  it('shows the delivery, endpoint, deliveries and audit pages readable at 1280 and 375 px, axe clean', async () => {
    const pages: [string, string][] = [
      ['delivery', `/deliveries/${deliveryId}`],
      ['webhook-endpoint', `/webhook-endpoints/${endpointId}`],
      ['deliveries', '/deliveries'],
      ['audit-log', '/audit-log'],
    ];
    for (const width of [1280, 375]) {
      const page = await signedInPage({ width });
      for (const [name, path] of pages) {
        await page.goto(`${server.origin}${path}`);
        expect(await seriousViolations(page), `${name} at ${width}`).toEqual([]);
        expect(await page.evaluate<string[]>(brokenWords), `${name} at ${width}`).toEqual([]);
        const pageWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
        expect(pageWidth, `${name} at ${width}`).toBeLessThanOrEqual(width);
        await saveScreenshot(page, `readable-${name}-${width}`);
      }
      await page.context().close();
    }
  });

  it('names the actor of a rotation, the endpoint by URL, and the whole id behind a short one', async () => {
    const page = await signedInPage({ width: 1280 });
    await page.goto(`${server.origin}/audit-log`);
    const rotation = page.locator('tr', { hasText: 'endpoint.secret_rotated' });
    await expect
      .poll(() => rotation.locator('.actor').textContent())
      .toBe('crm sync (service account)');
    await page.goto(`${server.origin}/deliveries`);
    await page.getByRole('link', { name: /crm\.example\.com/ }).click();
    await page.waitForURL(`${server.origin}/webhook-endpoints/${endpointId}`);
    const main = await page.locator('main').textContent();
    expect(main).toContain('contact.created, deal.updated');
    expect(main).toMatch(/Rotated 2 hours ago; the previous secret also signs until /);
    expect(main).toMatch(/50 %\s+of 2 attempts in the last 24 hours succeeded/);
    const shortened = page.locator('main table .id').first();
    expect(await shortened.getAttribute('title')).toBe(deliveryId);
    expect(await shortened.locator('code').textContent()).toMatch(/^dlv_.{4}….{3}$/);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await shortened.getByRole('button', { name: `Copy ${deliveryId}` }).click();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(deliveryId);
    await page.context().close();
  });

  it('sends a delivered delivery again only once the box is ticked, without JavaScript', async () => {
    const page = await signedInPage({ width: 375, javaScript: false });
    await page.goto(`${server.origin}/deliveries/${deliveryId}`);
    const main = page.locator('main');
    expect(await main.getByRole('button', { name: 'Retry now' }).count()).toBe(0);
    expect(await main.locator('pre').first().textContent()).toContain('"firstName": "Ada"');
    expect(await main.textContent()).toContain('[redacted]');
    // The Copy buttons need JavaScript: none shows without it.
    expect(await main.getByRole('button', { name: /^Copy / }).count()).toBe(0);
    await main.getByRole('button', { name: 'Send again' }).click();
    // The browser refuses the form while the box is empty: still the same page, delivered.
    expect(await main.textContent()).toContain('Delivered');
    await main.getByLabel(/send it again anyway/).check();
    await Promise.all([
      page.waitForURL(`${server.origin}/deliveries/${deliveryId}`),
      main.getByRole('button', { name: 'Send again' }).click(),
    ]);
    await expect.poll(() => main.locator('.badge').first().textContent()).toBe('Retrying');
    expect(await main.getByRole('button', { name: 'Retry now' }).count()).toBe(1);
    await page.context().close();
  });
});

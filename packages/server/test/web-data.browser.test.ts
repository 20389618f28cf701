// The data pages (Contacts, Deals, a contact's page with its timeline) in headless Chromium:
// search, filters and paging with JavaScript off, axe, stored payloads shown as text, and a
// contact's page at 1280 and 375 pixels wide, no text broken inside a word. Screenshots:
// test-output/screenshots/data-*.png; the contact's page is also copied into docs/ for the
// README when FOLLOWUP_UPDATE_SCREENSHOTS=1.
import { copyFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fanOutEvents } from '../src/delivery/fan-out.js';
import { createEndpointStore } from '../src/delivery/webhook-endpoints.js';
import { eraseContact } from '../src/erasure/contact-erasure.js';
import { createIdGenerator } from '../src/ids.js';
import { dealChangeOrder } from '../src/storage/change-order.js';
import { contactTable } from '../src/stores/contact-store.js';
import { dealStorage } from '../src/stores/deal-store.js';
import { resourceStore } from '../src/stores/resource-store.js';
import {
  type BrowserServer,
  browserAvailable,
  saveScreenshot,
  seriousViolations,
  signIn,
  startBrowserServer,
  useBrowser,
} from './support/browser.js';

const payloads = {
  script: '<script>window.__xss=1</script>',
  image: '"><img src=x onerror="window.__xss=2">',
  link: 'javascript:window.__xss=3',
};

// The words of `main` that the browser laid out on more than one line (a word broken inside).
const brokenWords = `(() => {
  const broken = [];
  const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    for (const match of node.data.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const lines = new Set([...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.bottom)));
      if (lines.size > 1) broken.push(match[0]);
    }
  }
  return broken;
})()`;

/** Where a filter form's label shows its text and its control, in pixels from the top. */
interface FilterBoxes {
  name: string;
  textTop: number;
  controlTop: number;
  controlBottom: number;
}

// Each label of the filter form: its text is its first line, its control the field under it.
const filterBoxes = `[...document.querySelectorAll('form.filters label')].map((label) => {
  const text = document.createRange();
  text.selectNodeContents(label.firstChild);
  const control = label.querySelector('input, select').getBoundingClientRect();
  return {
    name: label.firstChild.textContent.trim(),
    textTop: Math.round(text.getBoundingClientRect().top),
    controlTop: Math.round(control.top),
    controlBottom: Math.round(control.bottom),
  };
})`;

describe.skipIf(!browserAvailable)('the data pages in a browser', { timeout: 300_000 }, () => {
  const browser = useBrowser();
  let server: BrowserServer;
  let adaId = '';
  let payloadId = '';
  let erasedId = '';
  let dealId = '';

  beforeAll(async () => {
    server = await startBrowserServer({ rateLimit: false });
    const { database, clock } = server;
    const newId = createIdGenerator({ now: () => clock.now() });
    const actor = { type: 'service_account' as const, id: 'sa_browser' };
    const contacts = resourceStore(contactTable({ clock, newId }), { clock, newId });
    const deals = resourceStore(
      {
        name: 'deal',
        collection: 'deals',
        idPrefix: 'deal',
        ...dealStorage,
        defaults: { stage: 'OPEN' },
        changes: { order: dealChangeOrder },
        audited: { created: false, updated: false, deleted: true },
        events: {},
      },
      { clock, newId },
    );
    const create = async (body: Record<string, unknown>) => {
      clock.advance(60_000);
      return String((await contacts.createRecord(database, { actor, body })).item.id);
    };
    for (let index = 0; index < 60; index++) {
      await create({
        firstName: index % 2 === 0 ? `Grace${index}` : `Alan${index}`,
        lastName: 'Hopper',
        lifecycle: index % 3 === 0 ? 'PATIENT' : 'LEAD',
        email: `person${index}@example.com`,
      });
    }
    payloadId = await create({
      firstName: payloads.script,
      lastName: payloads.image,
      email: payloads.link,
    });
    erasedId = await create({ firstName: 'Erin', lastName: 'Erased', email: 'erin@example.com' });
    await eraseContact({ database, clock, newId, actor }, erasedId);

    // Ada: deals, changes, deliveries to an endpoint, audit entries: a full timeline.
    await createEndpointStore({ database, clock, newId }).add({
      url: 'https://crm.example.com/hooks',
    });
    adaId = await create({
      firstName: 'Ada',
      lastName: 'Lovelace',
      lifecycle: 'PATIENT',
      email: 'ada@example.com',
      phone: '+44 20 7946 0000',
    });
    for (const [contactId, title, amountCents] of [
      [adaId, 'Knee surgery', 1_250_000],
      [adaId, 'Physiotherapy, 10 sessions', 90_000],
      [adaId, 'Follow-up visit', 15_000],
      [payloadId, payloads.script, 100],
    ] as const) {
      clock.advance(60_000);
      const deal = await deals.createRecord(database, {
        actor,
        body: { contactId, title, amountCents, currency: 'USD' },
      });
      dealId ||= String(deal.item.id);
    }
    clock.advance(60_000);
    await database.transaction((transaction) =>
      deals.updateRecord(transaction, { actor, id: dealId, body: { stage: 'WON' } }),
    );
    await fanOutEvents(database, { clock, newId });
  });
  afterAll(async () => {
    await server?.close();
  });

  async function signedIn(
    role: 'ADMIN' | 'READONLY',
    options: { javaScript?: boolean; width?: number } = {},
  ): Promise<Page> {
    const context = await browser().newContext({
      javaScriptEnabled: options.javaScript ?? true,
      viewport: { width: options.width ?? 1280, height: 800 },
    });
    const page = await context.newPage();
    await page.addInitScript('window.__xss = 0');
    await signIn(page, server, role);
    return page;
  }

  const names = (page: Page) => page.locator('main table a[href^="/contacts/"]').allInnerTexts();

  it('searches, filters and pages contacts and deals with JavaScript off', async () => {
    const page = await signedIn('READONLY', { javaScript: false });
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Contacts' })
      .click();
    // 60, the payload and Ada: the erased contact is gone.
    await expect.poll(() => page.getByText('62 contacts').count()).toBe(1);
    expect(await names(page)).toHaveLength(50);
    expect((await names(page))[0]).toBe('Ada Lovelace');

    await page.getByRole('link', { name: 'Next page' }).click();
    expect(await names(page)).toHaveLength(12);
    expect(await page.getByRole('link', { name: 'Next page' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Previous page' }).click();
    expect(await names(page)).toHaveLength(50);
    expect(await page.getByRole('link', { name: 'Previous page' }).count()).toBe(0);

    // The form is a GET form: it works without a script, and the filters stay in the links.
    await page.getByLabel('Search').fill('GRACE1');
    await page.getByLabel('Lifecycle').selectOption('LEAD');
    await page.getByRole('button', { name: 'Search' }).click();
    expect(new URL(page.url()).search).toBe('?q=GRACE1&lifecycle=LEAD');
    const expected = Array.from({ length: 60 }, (_, index) => index)
      .filter((index) => index % 2 === 0 && String(index).startsWith('1') && index % 3 !== 0)
      .map((index) => `Grace${index} Hopper`)
      .reverse();
    expect(await names(page)).toEqual(expected);
    expect(await page.locator('main').textContent()).toContain(`${expected.length} contacts match`);

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Deals' })
      .click();
    expect(await page.locator('main').textContent()).toContain('4 deals');
    const titles = () => page.locator('main table a[href^="/deals/"]').allInnerTexts();
    // The search box of Deals: the start of a title, whatever its case, with the stage.
    await page.getByLabel('Search').fill('physio');
    await page.getByRole('button', { name: 'Search' }).click();
    expect(new URL(page.url()).search).toBe('?q=physio&stage=');
    expect(await titles()).toEqual(['Physiotherapy, 10 sessions']);
    expect(await page.locator('main').textContent()).toContain('1 deal match');
    expect(await page.getByLabel('Search').inputValue()).toBe('physio');
    await page.getByLabel('Search').fill('');
    await page.getByLabel('Stage').selectOption('WON');
    await page.getByRole('button', { name: 'Search' }).click();
    expect(new URL(page.url()).search).toBe('?q=&stage=WON');
    expect(await titles()).toEqual(['Knee surgery']);
    await page.getByLabel('Search').fill('KNEE');
    await page.getByRole('button', { name: 'Search' }).click();
    expect(await titles()).toEqual(['Knee surgery']);
    await page.getByLabel('Search').fill('follow');
    await page.getByRole('button', { name: 'Search' }).click();
    expect(new URL(page.url()).search).toBe('?q=follow&stage=WON');
    expect(await page.locator('main').textContent()).toContain('No deal matches.');
    await page.getByLabel('Stage').selectOption('');
    await page.getByRole('button', { name: 'Search' }).click();
    expect(await titles()).toEqual(['Follow-up visit']);
    await page.goto(`${server.origin}/deals?stage=WON`);
    expect(await titles()).toEqual(['Knee surgery']);
    await page.getByRole('link', { name: 'Knee surgery' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Knee surgery');
    await page.getByRole('link', { name: adaId }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Ada Lovelace');
  });

  it('passes axe on every data page and shows stored payloads as text, running none', async () => {
    const page = await signedIn('ADMIN');
    const pages: [string, string][] = [
      ['contacts', '/contacts'],
      ['contacts-searched', '/contacts?q=ada&lifecycle=PATIENT'],
      ['contacts-none', '/contacts?q=zzz'],
      ['contact', `/contacts/${adaId}`],
      ['contact-payload', `/contacts/${payloadId}`],
      ['contact-erased', `/contacts/${erasedId}`],
      ['deals', '/deals'],
      ['deals-searched', '/deals?q=physio&stage=OPEN'],
      ['deals-none', '/deals?q=zzz'],
      ['deal', `/deals/${dealId}`],
      ['contact-missing', '/contacts/con_missing'],
    ];
    for (const [name, path] of pages) {
      const response = await page.goto(`${server.origin}${path}`);
      expect(response?.status(), name).toBe(name === 'contact-missing' ? 404 : 200);
      expect(await seriousViolations(page), name).toEqual([]);
      expect(await page.evaluate('window.__xss'), name).toBe(0);
      expect(await page.locator('main script, main img').count(), name).toBe(0);
      expect(await page.locator('main a[href^="javascript:"]').count(), name).toBe(0);
      await saveScreenshot(page, `data-${name}`);
      if (name === 'contact-payload') {
        const text = await page.locator('main').textContent();
        for (const payload of Object.values(payloads)) expect(text).toContain(payload);
      }
      if (name === 'contact-erased') {
        const erased = await page.locator('main').textContent();
        expect(erased).toContain('[erased]');
        expect(erased).not.toMatch(/Erin|erin@example\.com/);
      }
    }
  });

  it("lays a contact's page out at 1280 and 375 pixels, never wider than the screen, no word broken", async () => {
    const update = process.env.FOLLOWUP_UPDATE_SCREENSHOTS === '1';
    for (const width of [1280, 375]) {
      const page = await signedIn('ADMIN', { width });
      for (const path of [`/contacts/${adaId}`, '/contacts', '/deals', `/deals/${dealId}`]) {
        await page.goto(`${server.origin}${path}`);
        expect(await page.evaluate<string[]>(brokenWords), `${path} at ${width}`).toEqual([]);
        const pageWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
        expect(pageWidth, `${path} at ${width}`).toBeLessThanOrEqual(width);
        if (path !== `/contacts/${adaId}`) continue;
        const saved = await saveScreenshot(page, `data-contact-${width}`);
        if (update) {
          copyFileSync(saved, new URL(`../docs/console-contact-${width}.png`, import.meta.url));
        }
      }
      await page.context().close();
    }
  });

  it('lines up the filter forms: each label on one line, each control on one line', async () => {
    const page = await signedIn('ADMIN', { width: 1280 });
    const misaligned: string[] = [];
    for (const path of ['/contacts', '/deals']) {
      await page.goto(`${server.origin}${path}`);
      const boxes = await page.evaluate<FilterBoxes[]>(filterBoxes);
      await saveScreenshot(page, `data-filters-${path.slice(1)}`);
      const [first, ...others] = boxes;
      for (const other of others) {
        for (const edge of ['textTop', 'controlTop', 'controlBottom'] as const) {
          if (other[edge] !== first?.[edge]) {
            misaligned.push(
              `${path}: ${other.name} ${edge} ${other[edge]}, ${first?.name} ${first?.[edge]}`,
            );
          }
        }
      }
    }
    await page.context().close();
    expect(misaligned).toEqual([]);
  });
});

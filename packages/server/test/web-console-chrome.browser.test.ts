// The console's chrome in headless Chromium (see test/support/browser.ts): the 404 and 405
// pages, the icon (no 404 in the network log), the success notice after each change, the Issue
// token form's expiry, the row actions (primary in sight, the rest in a menu, destructive ones
// confirmed), with and without JavaScript, and every console page on a 375 px screen: no word
// broken inside, every action of every table reachable. Screenshots: chrome-*.png.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryStore } from '../src/delivery/deliveries.js';
import { fanOutEvents } from '../src/delivery/fan-out.js';
import { createEndpointStore } from '../src/delivery/webhook-endpoints.js';
import { createIdGenerator } from '../src/ids.js';
import { recordOutboxEvent } from '../src/stores/outbox-store.js';
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

// The words of the page's content that the browser broke across two lines: a word of letters
// only (ids, URLs and secrets may break where they must) whose characters do not all sit on one
// line. Run in the page, where the DOM's types are.
const brokenWords = `(() => {
  const broken = [];
  const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    if (!element || element.closest('.visually-hidden, option, script, style')) continue;
    if (element.getClientRects().length === 0) continue;
    for (const match of node.textContent.matchAll(/\\S+/gu)) {
      const word = /^[("'“]*(\\p{L}{2,})[)"'”.,:;!?]*$/u.exec(match[0]);
      if (!word) continue;
      const start = match.index + match[0].indexOf(word[1]);
      const range = document.createRange();
      range.setStart(node, start);
      range.setEnd(node, start + word[1].length);
      const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (tops.size > 1) broken.push(word[1]);
    }
  }
  return broken;
})()`;

describe.skipIf(!browserAvailable)('the console chrome in Chromium', { timeout: 240_000 }, () => {
  const browser = useBrowser();
  let server: BrowserServer;

  beforeAll(async () => {
    server = await startBrowserServer({ rateLimit: false });
  });
  afterAll(async () => {
    await server?.close();
  });

  const ids = () => createIdGenerator({ now: () => server.clock.now() });

  // A signed-in ADMIN's page, recording every response of 400 or more it gets.
  async function adminPage(
    options: { width?: number; javaScript?: boolean } = {},
  ): Promise<{ page: Page; failures: string[] }> {
    const context = await (browser() as Browser).newContext({
      baseURL: server.origin,
      viewport: { width: options.width ?? 1280, height: 800 },
      javaScriptEnabled: options.javaScript ?? true,
    });
    const page = await context.newPage();
    const failures: string[] = [];
    page.on('response', (response) => {
      if (response.status() >= 400) failures.push(`${response.status()} ${response.url()}`);
    });
    await signIn(page, server, await createTestUser(server, 'ADMIN'));
    return { page, failures };
  }

  async function notice(page: Page): Promise<string> {
    return (await page.getByRole('status').textContent()) ?? '';
  }

  it('answers a mistyped console URL with the 404 page and a link-followed form URL with the 405 page', async () => {
    const { page } = await adminPage();
    const missing = await page.goto('/service-acounts');
    expect(missing?.status()).toBe(404);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Page not found');
    expect(await page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await saveScreenshot(page, 'chrome-not-found');
    await page.getByRole('link', { name: 'Go to the start page' }).click();
    await page.waitForURL(`${server.origin}/`);

    const wrongMethod = await page.goto('/signout');
    expect(wrongMethod?.status()).toBe(405);
    expect(wrongMethod?.headers().allow).toBe('POST');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'This page cannot be used that way',
    );
    expect(await seriousViolations(page)).toEqual([]);
    await saveScreenshot(page, 'chrome-method-not-allowed');
    // Still signed in: the GET did not sign out.
    expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
  });

  it('gets no 404 for an icon, and /favicon.ico leads to the SVG icon', async () => {
    const { page, failures } = await adminPage();
    for (const path of ['/', '/service-accounts', '/users', '/webhook-endpoints', '/audit-log']) {
      await page.goto(path);
    }
    const icon = await page.goto('/favicon.ico');
    expect(icon?.status()).toBe(200);
    expect(icon?.headers()['content-type']).toBe('image/svg+xml');
    expect(new URL(icon?.url() ?? '').pathname).toMatch(/^\/assets\/icon\.[0-9a-f]{12}\.svg$/);
    expect(failures).toEqual([]);
  });

  it('issues a token expiring in 90 days by default, or in a custom number of days once chosen', async () => {
    const accounts = createAccountStore({
      database: server.database,
      clock: server.clock,
      newId: ids(),
    });
    const account = await accounts.createAccount({ name: 'expiry', role: 'AGENT' });
    const { page } = await adminPage();
    await page.goto(`/service-accounts/${account.id}`);
    const expires = page.getByLabel('Expires in');
    expect(await expires.inputValue()).toBe('90d');
    expect(await expires.locator('option').allTextContents()).toContain('Never');
    expect(await page.getByRole('spinbutton', { name: 'Custom number of days' }).isVisible()).toBe(
      false,
    );
    await page.getByRole('button', { name: 'Issue', exact: true }).click();
    await page.waitForSelector('#new-token');
    const [first] = await accounts.listTokens(account.id);
    expect(Date.parse(first?.expiresAt ?? '') - Date.parse(first?.createdAt ?? '')).toBe(
      90 * 86_400_000,
    );

    await page.getByLabel('Expires in').selectOption({ label: 'Custom number of days' });
    expect(await page.getByRole('spinbutton', { name: 'Custom number of days' }).isVisible()).toBe(
      true,
    );
    expect(await seriousViolations(page)).toEqual([]);
    await saveScreenshot(page, 'chrome-token-custom-days');
    await page.getByRole('spinbutton', { name: 'Custom number of days' }).fill('7');
    await page.getByRole('button', { name: 'Issue', exact: true }).click();
    await page.waitForSelector('#new-token');
    const custom = (await accounts.listTokens(account.id)).find((token) => token.id !== first?.id);
    expect(Date.parse(custom?.expiresAt ?? '') - Date.parse(custom?.createdAt ?? '')).toBe(
      7 * 86_400_000,
    );
  });

  it('keeps the custom days usable without JavaScript, and the row menu and confirm steps too', async () => {
    const accounts = createAccountStore({
      database: server.database,
      clock: server.clock,
      newId: ids(),
    });
    const account = await accounts.createAccount({ name: 'no script', role: 'AGENT' });
    const token = await accounts.issueToken({ accountId: account.id, label: 'one' });
    const { page } = await adminPage({ javaScript: false });
    await page.goto(`/service-accounts/${account.id}`);
    await page.getByLabel('Expires in').selectOption({ label: 'Custom number of days' });
    await page.getByRole('spinbutton', { name: 'Custom number of days' }).fill('3');
    await page.getByRole('button', { name: 'Issue', exact: true }).click();
    await page.waitForSelector('#new-token');
    expect(await notice(page)).toMatch(/^Token tok_\w+ issued\.$/);

    await page.getByText(`More actions for ${token.id}`).click();
    await page.getByRole('button', { name: `Revoke ${token.id}` }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
      `Revoke token ${token.id}?`,
    );
    await page.getByRole('button', { name: 'Revoke token' }).click();
    await page.waitForURL(`${server.origin}/service-accounts/${account.id}`);
    expect(await notice(page)).toBe(`Token ${token.id} revoked: calls with it now fail with 401.`);
  });

  it('shows a notice after each change: create, issue, revoke, invite, change role, disable, add, rotate', async () => {
    const { page } = await adminPage();
    await page.goto('/service-accounts/new');
    await page.getByLabel('Name').fill('crm sync');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    expect(await notice(page)).toBe('Service account crm sync created. Issue it a token below.');
    await saveScreenshot(page, 'chrome-notice-created');
    await page.getByRole('button', { name: 'Issue', exact: true }).click();
    expect(await notice(page)).toMatch(/^Token tok_\w+ issued\.$/);
    await page.reload();
    expect(await page.getByRole('status').count()).toBe(0);

    await page.getByRole('button', { name: 'Disable account' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Disable crm sync?');
    expect(await seriousViolations(page)).toEqual([]);
    await saveScreenshot(page, 'chrome-confirm-disable-account');
    await page.getByRole('button', { name: 'Disable account' }).click();
    expect(await notice(page)).toBe('Account disabled; 1 token revoked.');

    await page.goto('/users/invite');
    await page.getByLabel('Email').fill('grace@example.com');
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    expect(await notice(page)).toBe('grace@example.com invited as READONLY.');
    await page.getByLabel('Role of grace@example.com', { exact: true }).selectOption('AGENT');
    await page.getByRole('button', { name: 'Change role of grace@example.com' }).click();
    expect(await notice(page)).toBe('grace@example.com is now AGENT.');
    await page.getByText('More actions for grace@example.com').click();
    await page.getByRole('button', { name: 'Disable grace@example.com' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'Disable grace@example.com?',
    );
    await page.getByRole('button', { name: 'Disable user' }).click();
    expect(await notice(page)).toBe('grace@example.com disabled.');
    expect(await seriousViolations(page)).toEqual([]);

    await page.goto('/webhook-endpoints/new');
    await page.getByLabel('URL').fill('https://crm.example.com/hooks');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    expect(await notice(page)).toMatch(/^Endpoint we_\w+ added\.$/);
    const endpointId = (await notice(page)).split(' ')[1] ?? '';
    await page.getByText(`More actions for ${endpointId}`).click();
    await page.getByRole('button', { name: `Rotate secret of ${endpointId}` }).click();
    expect(await notice(page)).toBe(`Secret of ${endpointId} rotated.`);
    await page.getByText(`More actions for ${endpointId}`).click();
    await page.getByRole('button', { name: `Disable ${endpointId}` }).click();
    await page.getByRole('button', { name: 'Disable endpoint' }).click();
    expect(await notice(page)).toBe(`Endpoint ${endpointId} disabled.`);
    await page.getByRole('button', { name: `Enable ${endpointId}` }).click();
    expect(await notice(page)).toBe(`Endpoint ${endpointId} enabled.`);
  });

  it('fits every console page on a 375 px screen: no word broken, every row action reachable', async () => {
    const newId = ids();
    const accounts = createAccountStore({ database: server.database, clock: server.clock, newId });
    const account = await accounts.createAccount({ name: 'narrow screen', role: 'AGENT' });
    const token = await accounts.issueToken({ accountId: account.id, label: 'ci deploy' });
    await inviteUser(
      { database: server.database, clock: server.clock, newId, actor: { type: 'operator' } },
      {
        email: 'a-rather-long-address-for-a-narrow-screen@example.com',
        role: 'AGENT',
        publicUrl: server.origin,
      },
    );
    const endpoints = createEndpointStore({
      database: server.database,
      clock: server.clock,
      newId,
    });
    const endpoint = await endpoints.add({
      url: 'https://crm.example.com/hooks/followup/a-long-path-that-needs-room?tenant=acme',
    });
    await recordOutboxEvent(
      server.database,
      { event: 'contact.created', data: { id: newId('con'), firstName: 'Ada', lastName: 'L' } },
      { clock: server.clock, newId },
    );
    await fanOutEvents(server.database, { clock: server.clock, newId });
    const [delivery] = await createDeliveryStore({
      database: server.database,
      clock: server.clock,
      newId,
    }).list();

    const { page, failures } = await adminPage({ width: 375 });
    const pages: [string, string][] = [
      ['home', '/'],
      ['service-accounts', '/service-accounts'],
      ['create-service-account', '/service-accounts/new'],
      ['service-account', `/service-accounts/${account.id}`],
      ['revoke-token', `/service-accounts/${account.id}/tokens/${token.id}/revoke`],
      ['disable-account', `/service-accounts/${account.id}/disable`],
      ['users', '/users'],
      ['invite-user', '/users/invite'],
      ['webhook-endpoints', '/webhook-endpoints'],
      ['webhook-endpoint', `/webhook-endpoints/${endpoint.id}`],
      ['disable-endpoint', `/webhook-endpoints/${endpoint.id}/disable`],
      ['remove-endpoint', `/webhook-endpoints/${endpoint.id}/remove`],
      ['deliveries', '/deliveries'],
      ['delivery', `/deliveries/${delivery?.id}`],
      ['ehr-receipts', '/ehr-receipts'],
      ['audit-log', '/audit-log'],
      ['not-found', '/no-such-page'],
    ];
    const problems: string[] = [];
    for (const [name, path] of pages) {
      await page.goto(path);
      // Every row's menu open, so that the screenshot shows its actions, and they can be checked.
      await page.$$eval('details.row-menu', (menus) => {
        for (const menu of menus) menu.setAttribute('open', '');
      });
      await saveScreenshot(page, `chrome-narrow-${name}`);
      const width = await page.evaluate<number>('document.documentElement.scrollWidth');
      if (width > 375) problems.push(`${name}: ${width} px wide`);
      const broken = await page.evaluate<string[]>(brokenWords);
      if (broken.length > 0) problems.push(`${name}: broken words ${broken.join(', ')}`);
      // A card shows a heading over a value only: none over an empty cell (a row with no action).
      const emptyLabels = await page.$$eval('table.cards td[data-label]', (cells) =>
        cells
          .filter((cell) => cell.children.length === 0 && cell.textContent?.trim() === '')
          // Shown: a cell hidden (display: none) has no box.
          .filter((cell) => cell.getClientRects().length > 0)
          .map((cell) => cell.getAttribute('data-label')),
      );
      if (emptyLabels.length > 0) problems.push(`${name}: empty ${emptyLabels.join(', ')} shown`);
      // Each action of a table, brought into view (its region scrolls), lies on the screen.
      const actions = page.locator('td .row-actions :is(button, a, summary)');
      for (let index = 0; index < (await actions.count()); index++) {
        const action = actions.nth(index);
        await action.scrollIntoViewIfNeeded();
        const box = await action.boundingBox();
        if (!box || box.x < 0 || box.x + box.width > 375) {
          problems.push(`${name}: ${await action.textContent()} off screen`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(failures.filter((failure) => !failure.endsWith('/no-such-page'))).toEqual([]);
  });
});

// Every page of the web application with the keyboard alone, in headless Chromium (see
// test/support/browser.ts): Tab reaches every link, button and field in the order of the
// document, each one shows a focus ring (an outline or a box shadow it does not have unfocused),
// the skip link takes focus to the page's content, and each form with a field submits on Enter.
// Screenshots with the focus ring showing: test-output/screenshots/keyboard-*.png.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryStore } from '../src/delivery/deliveries.js';
import { fanOutEvents } from '../src/delivery/fan-out.js';
import { createEndpointStore } from '../src/delivery/webhook-endpoints.js';
import { createIdGenerator } from '../src/ids.js';
import { createPortalLink } from '../src/portal/portal-links.js';
import { recordOutboxEvent } from '../src/stores/outbox-store.js';
import { createAccountStore } from '../src/tokens/account-store.js';
import { inviteUser } from '../src/users/user-actions.js';
import {
  type BrowserServer,
  browserAvailable,
  createTestUser,
  edgeBrightness,
  saveScreenshot,
  seriousViolations,
  signIn,
  startBrowserServer,
  useBrowser,
} from './support/browser.js';

/** What the page does when its controls are tabbed through. */
interface TabWalk {
  /** The controls Tab should reach, in the order of the document. */
  expected: string[];
  /** The controls Tab reached, one per press. */
  reached: string[];
  /** The controls that showed no focus ring when reached. */
  unringed: string[];
}

// The focused control, and whether its focus ring differs from how it looked unfocused: a
// function's source, as it runs in the page, where the DOM's types are.
const describeFocus = `() => {
  const element = document.activeElement;
  if (!element || !element.dataset || element.dataset.keyboardIndex === undefined) {
    return { name: 'outside: ' + (element ? element.tagName : 'none'), ringed: false };
  }
  const style = getComputedStyle(element);
  const ring = style.outlineStyle + ' ' + style.outlineWidth + ' ' + style.boxShadow;
  const outlined = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
  const text = (element.getAttribute('aria-label') || element.textContent || element.id || element.name || '').trim();
  return {
    name: element.dataset.keyboardIndex + ' ' + element.tagName + ' ' + text.slice(0, 40),
    ringed: ring !== element.dataset.keyboardRing && (outlined || style.boxShadow !== 'none'),
  };
}`;

// The focused control now.
const focusedControl = `(${describeFocus})()`;

// Marks every control a keyboard user can reach (in document order), with how it looks
// unfocused, and from now on notes the focused control at the end of each press of Tab (its
// keyup reaches the control Tab moved to): the walk then reads the notes once, instead of
// asking the page after each press, which was a third of a walk's time.
const markControls = `(() => {
  window.__tabStops = [];
  if (!window.__tabStopsNoted) {
    window.__tabStopsNoted = true;
    window.addEventListener('keyup', (event) => {
      if (event.key === 'Tab') window.__tabStops.push((${describeFocus})());
    }, true);
  }
  const selector = 'a[href], button, input, select, textarea, summary, [tabindex]';
  const controls = [...document.querySelectorAll(selector)].filter((element) => {
    if (element.matches('[tabindex="-1"], [disabled], input[type="hidden"]')) return false;
    if (element.closest('[hidden]')) return false;
    // The content of a closed <details> (not its summary) takes no focus until it is opened.
    const closed = element.closest('details:not([open])');
    if (closed && !(element.matches('summary') && element.parentElement === closed)) return false;
    const style = getComputedStyle(element);
    return style.display !== 'none' && style.visibility !== 'hidden' && element.getClientRects().length > 0;
  });
  document.activeElement?.blur?.();
  return controls.map((element, index) => {
    const style = getComputedStyle(element);
    element.dataset.keyboardIndex = String(index);
    element.dataset.keyboardRing = style.outlineStyle + ' ' + style.outlineWidth + ' ' + style.boxShadow;
    const text = (element.getAttribute('aria-label') || element.textContent || element.id || element.name || '').trim();
    return index + ' ' + element.tagName + ' ' + text.slice(0, 40);
  });
})()`;

async function tabThrough(page: Page): Promise<TabWalk> {
  const expected = await page.evaluate<string[]>(markControls);
  for (let press = 0; press < expected.length; press++) await page.keyboard.press('Tab');
  // A press that takes focus out of the document reaches no control and notes nothing: the
  // walk is then shorter than the order expected.
  const stops = await page.evaluate<{ name: string; ringed: boolean }[]>('window.__tabStops');
  return {
    expected,
    reached: stops.map((stop) => stop.name),
    unringed: stops.filter((stop) => !stop.ringed).map((stop) => stop.name),
  };
}

// The forms of the page's content that have a field to type in: the action, method and the
// selector of their first such field.
const formsWithFields = `(() => [...document.querySelectorAll('main form')].flatMap((form, index) => {
  const field = form.querySelector('input:not([type=hidden]):not([type=checkbox]):not([type=radio]):not([hidden])');
  // getAttribute: a field named "action" hides the form's own action property.
  const action = new URL(form.getAttribute('action') || location.href, location.href).href;
  const method = (form.getAttribute('method') || 'get').toUpperCase();
  return field ? [{ index, action, method }] : [];
}))()`;

// Fills the required fields of a form with values it accepts.
function fillRequired(index: number): string {
  return `(() => {
    const form = document.querySelectorAll('main form')[${index}];
    for (const field of form.querySelectorAll('input[required], input[type=password]')) {
      if (field.value) continue;
      field.value = field.type === 'email' ? 'keyboard-' + Date.now() + '@example.com'
        : field.type === 'url' ? 'https://keyboard.example.com/hooks'
        : field.type === 'number' ? '1'
        : field.type === 'password' ? 'a long keyboard password'
        : field.name === 'since' ? '2026-03-01T00:00:00Z'
        : 'keyboard';
    }
    form.querySelector('input:not([type=hidden]):not([type=checkbox]):not([type=radio]):not([hidden])').focus();
  })()`;
}

describe.skipIf(!browserAvailable)('the web application by keyboard', { timeout: 300_000 }, () => {
  const browser = useBrowser();
  let server: BrowserServer;
  const longName = 'Maximiliana Alexandrina Wolfeschlegelsteinhausenbergerdorff-Featherstonehaugh';

  beforeAll(async () => {
    server = await startBrowserServer({
      rateLimit: false,
      ehrWebhookSecrets: { athenahealth: 'athena-secret' },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  async function newPage(width = 1280): Promise<Page> {
    const context = await browser().newContext({ viewport: { width, height: 800 } });
    return context.newPage();
  }

  // Tabs through the page as it is, checks order and rings, uses the skip link, and saves a
  // screenshot with the focus ring on the first control of the content.
  async function checkKeyboard(page: Page, name: string): Promise<void> {
    const walk = await tabThrough(page);
    expect(walk.expected.length, name).toBeGreaterThan(0);
    expect(walk.reached, `${name}: Tab order`).toEqual(walk.expected);
    expect(walk.unringed, `${name}: no focus ring`).toEqual([]);

    // Past the last control Tab leaves the document and comes back round to the skip link
    // (the walk above showed it is the first stop), which moves focus into the content. Where
    // Chromium resumes after leaving the document is its own affair (under load it once came
    // back at the third control), so Tab goes on round the whole order until the skip link.
    if (walk.expected[0]?.includes('Skip to content')) {
      const wrapped: string[] = [];
      for (let press = 0; press < walk.expected.length + 3; press++) {
        await page.keyboard.press('Tab');
        wrapped.push((await page.evaluate<{ name: string }>(focusedControl)).name);
        if (wrapped.at(-1)?.includes('Skip to content')) break;
      }
      expect(
        wrapped.at(-1),
        `${name}: Tab came back to the skip link (${wrapped.join(' | ')})`,
      ).toContain('Skip to content');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Tab');
      const focus = await page.evaluate<{ inMain: boolean; mainHasControls: boolean }>(`({
        inMain: document.querySelector('main').contains(document.activeElement),
        mainHasControls: document.querySelector('main [data-keyboard-index]') !== null,
      })`);
      expect(focus.inMain, `${name}: the skip link leads into main`).toBe(focus.mainHasControls);
    }
    await saveScreenshot(page, `keyboard-${name}`);
  }

  // Each form of the content with a field submits when Enter is pressed in it.
  async function checkEnterSubmits(page: Page, name: string, path: string): Promise<void> {
    const forms =
      await page.evaluate<{ index: number; action: string; method: string }[]>(formsWithFields);
    for (const form of forms) {
      await page.goto(`${server.origin}${path}`);
      await page.evaluate(fillRequired(form.index));
      const sent = page.waitForRequest(
        (request) =>
          request.method() === form.method &&
          request.url().split('?')[0] === form.action.split('?')[0],
        { timeout: 10_000 },
      );
      const loaded = page.waitForEvent('load');
      await page.keyboard.press('Enter');
      const request = await sent.catch(() => undefined);
      expect(request && `${form.method} ${form.action}`, name).toBe(
        `${form.method} ${form.action}`,
      );
      await loaded;
    }
  }

  it('reaches every control of every page in order, with a visible focus, and submits forms on Enter', async () => {
    const newId = createIdGenerator({ now: () => server.clock.now() });
    const accounts = createAccountStore({ database: server.database, clock: server.clock, newId });
    const account = await accounts.createAccount({ name: 'crm sync', role: 'AGENT' });
    const token = await accounts.issueToken({ accountId: account.id, label: 'ci deploy' });
    const endpoints = createEndpointStore({
      database: server.database,
      clock: server.clock,
      newId,
    });
    const endpoint = await endpoints.add({ url: 'https://crm.example.com/hooks' });
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
    expect(delivery?.id).toMatch(/^dlv_/);
    // What the delivery worker does to an endpoint that answered 410 Gone.
    await server.database.query(
      `UPDATE webhook_endpoints SET state = 'disabled', disabled_reason = 'gone',
         failing_since = $2 WHERE id = $1`,
      [endpoint.id, new Date(server.clock.now())],
    );
    const receipt = await fetch(`${server.origin}/api/ehr/webhooks/athenahealth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature': 'sha256=00' },
      body: '{"event":"patient.updated"}',
    });
    expect(receipt.status).toBe(401);
    const { rows } = await server.database.query<{ id: string }>(
      'SELECT id FROM ehr_receipts LIMIT 1',
    );
    const receiptId = rows[0]?.id as string;
    // A contact with a deal, for the data pages.
    const apiToken = await accounts.issueToken({ accountId: account.id, label: 'data' });
    const api = (path: string, body: unknown) =>
      fetch(`${server.origin}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiToken.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((response) => response.json() as Promise<{ id: string }>);
    const contact = await api('/api/contacts', { firstName: 'Ada', lastName: 'Lovelace' });
    const deal = await api('/api/deals', {
      contactId: contact.id,
      title: 'Knee surgery',
      amountCents: 125_000,
      currency: 'USD',
    });

    // Signed out: the sign-in page, and a sign-in link's Choose a password.
    const signedOut = await newPage();
    await signedOut.goto(`${server.origin}/signin`);
    await checkKeyboard(signedOut, 'signin');
    const invitation = await inviteUser(
      { database: server.database, clock: server.clock, newId, actor: { type: 'operator' } },
      { email: 'keyboard-invite@example.com', role: 'READONLY', publicUrl: server.origin },
    );
    await signedOut.goto(invitation.signInUrl);
    await checkKeyboard(signedOut, 'choose-password');
    await checkEnterSubmits(signedOut, 'choose-password', new URL(invitation.signInUrl).pathname);
    await signedOut.context().close();

    // Signed in as an ADMIN with a long name: every page of the console.
    const page = await newPage();
    const admin = await createTestUser(server, 'ADMIN', { name: longName });
    await signIn(page, server, admin);
    const pages: [string, string][] = [
      ['home', '/'],
      ['service-accounts', '/service-accounts'],
      ['create-service-account', '/service-accounts/new'],
      ['service-account', `/service-accounts/${account.id}`],
      ['revoke-token', `/service-accounts/${account.id}/tokens/${token.id}/revoke`],
      ['roll-token', `/service-accounts/${account.id}/tokens/${token.id}/roll`],
      ['users', '/users'],
      ['invite-user', '/users/invite'],
      ['webhook-endpoints', '/webhook-endpoints'],
      ['webhook-endpoint', `/webhook-endpoints/${endpoint.id}`],
      ['add-endpoint', '/webhook-endpoints/new'],
      ['remove-endpoint', `/webhook-endpoints/${endpoint.id}/remove`],
      ['deliveries', '/deliveries'],
      ['delivery', `/deliveries/${delivery?.id}`],
      ['ehr-receipts', '/ehr-receipts'],
      ['ehr-receipt', `/ehr-receipts/${receiptId}`],
      ['audit-log', '/audit-log'],
      ['contacts', '/contacts?q=ada'],
      ['contact', `/contacts/${contact.id}`],
      ['deals', '/deals?stage=OPEN'],
      ['deal', `/deals/${deal.id}`],
      ['not-found', '/deliveries/dlv_missing'],
      ['disable-account', `/service-accounts/${account.id}/disable`],
      ['disable-user', `/users/${invitation.id}/disable`],
      ['revoke-sessions', `/users/${invitation.id}/sessions/revoke`],
      ['disable-endpoint', `/webhook-endpoints/${endpoint.id}/disable`],
      ['page-not-found', '/service-acounts'],
      ['method-not-allowed', '/signout'],
    ];
    for (const [name, path] of pages) {
      await page.goto(`${server.origin}${path}`);
      await checkKeyboard(page, name);
      if (name === 'webhook-endpoint') expect(await seriousViolations(page), name).toEqual([]);
      await checkEnterSubmits(page, name, path);
    }

    // On a 375 px screen no page is wider than the screen: a wide table scrolls in its region.
    await page.setViewportSize({ width: 375, height: 800 });
    const wide: string[] = [];
    for (const [name, path] of pages) {
      await page.goto(`${server.origin}${path}`);
      await saveScreenshot(page, `narrow-${name}`);
      const width = await page.evaluate<number>('document.documentElement.scrollWidth');
      if (width > 375) wide.push(`${name}: ${width} px`);
    }
    expect(wide).toEqual([]);

    // A table wider than the screen shows a shadow on the side there is more of it to scroll to.
    await page.goto(`${server.origin}/deliveries`);
    const region = '.table-scroll';
    const overflows = await page.$eval(
      region,
      (element) => element.scrollWidth > element.clientWidth,
    );
    expect(overflows, 'the deliveries table is wider than a 375 px screen').toBe(true);
    const atStart = await edgeBrightness(page, region);
    expect(atStart.right, 'shadow on the right at the start').toBeLessThan(235);
    expect(atStart.left, 'no shadow on the left at the start').toBeGreaterThan(250);
    await page.$eval(region, (element) => {
      element.scrollLeft = element.scrollWidth;
    });
    const atEnd = await edgeBrightness(page, region);
    expect(atEnd.left, 'shadow on the left at the end').toBeLessThan(235);
    expect(atEnd.right, 'no shadow on the right at the end').toBeGreaterThan(250);
    await saveScreenshot(page, 'narrow-deliveries-scrolled');
    await page.setViewportSize({ width: 1280, height: 800 });

    // The token shown once, after Issue: tabbed through as it is (a reload would not show it).
    await page.goto(`${server.origin}/service-accounts/${account.id}`);
    await page.getByLabel('Label').fill('shown once');
    await page.getByLabel('Label').press('Enter');
    await page.waitForSelector('#new-token');
    await checkKeyboard(page, 'token-shown-once');

    // The header with a long name: cut with an ellipsis, the whole name in its title, on a
    // wide and a narrow screen alike, never wider than the screen.
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: 800 });
      await page.goto(`${server.origin}/`);
      await saveScreenshot(page, `header-long-name-${width}`);
      const header = await page.evaluate<{
        cut: boolean;
        title: string | null;
        text: string;
        overflow: boolean;
      }>(`(() => {
        const name = document.querySelector('.who-name');
        return {
          cut: name.scrollWidth > name.clientWidth,
          title: document.querySelector('.who').getAttribute('title'),
          text: name.textContent,
          overflow: document.documentElement.scrollWidth > window.innerWidth,
        };
      })()`);
      expect(header, `${width}`).toEqual({
        cut: true,
        title: `${longName} (ADMIN)`,
        text: longName,
        overflow: false,
      });
    }
    await page.context().close();

    // A role without the capability: the 403 page.
    const manager = await newPage();
    await signIn(manager, server, 'MANAGER');
    const forbidden = await manager.goto(`${server.origin}/service-accounts`);
    expect(forbidden?.status()).toBe(403);
    await checkKeyboard(manager, 'forbidden');
    await manager.context().close();

    // Too many failed sign-ins: the 429 page.
    const throttled = await newPage();
    const user = await createTestUser(server, 'READONLY');
    for (let attempt = 0; attempt < 6; attempt++) {
      await throttled.goto(`${server.origin}/signin`);
      await throttled.getByLabel('Email').fill(user.email);
      await throttled.getByLabel('Password').fill(`wrong password ${attempt}`);
      const loaded = throttled.waitForEvent('load');
      await throttled.getByLabel('Password').press('Enter');
      await loaded;
    }
    expect(await throttled.getByRole('heading', { name: 'Too many attempts' }).isVisible()).toBe(
      true,
    );
    await checkKeyboard(throttled, 'too-many-attempts');
    await throttled.context().close();
  });

  it('walks every page of the subscriber portal by keyboard, and none is wider than 375 px', async () => {
    const newId = createIdGenerator({ now: () => server.clock.now() });
    const endpoints = createEndpointStore({
      database: server.database,
      clock: server.clock,
      newId,
    });
    const endpoint = await endpoints.add({
      url: 'https://hooks.acme.example.com/followup/a-rather-long-path/for-a-narrow-screen',
      subscriber: 'acme',
      description: 'The CRM of Acme',
      headers: { 'X-Team': 'crm' },
    });
    await recordOutboxEvent(
      server.database,
      { event: 'contact.created', data: { id: newId('con'), firstName: 'Ada', lastName: 'L' } },
      { clock: server.clock, newId },
    );
    await fanOutEvents(server.database, { clock: server.clock, newId });
    const { rows } = await server.database.query<{ id: string }>(
      'SELECT id FROM deliveries WHERE endpoint_id = $1',
      [endpoint.id],
    );
    const deliveryId = rows[0]?.id as string;
    const link = await createPortalLink(server.database, {
      subscriber: 'acme',
      publicUrl: server.origin,
      actor: { type: 'operator' },
      clock: server.clock,
      newId,
    });

    const page = await newPage();
    await page.goto(link.url);
    await checkKeyboard(page, 'portal-link');
    const loaded = page.waitForURL(`${server.origin}/portal/endpoints`);
    await page.getByRole('button', { name: 'Open the portal' }).focus();
    await page.keyboard.press('Enter');
    await loaded;
    const replay = await page.request.post(`${server.origin}/portal/replay`, {
      form: {
        _csrf: (await page.getAttribute('meta[name="csrf-token"]', 'content')) as string,
        endpoint: endpoint.id,
        since: new Date(server.clock.now() - 3_600_000).toISOString(),
        states: 'missing',
      },
      headers: { origin: server.origin },
      maxRedirects: 0,
    });
    expect(replay.status()).toBe(303);
    const pages: [string, string][] = [
      ['portal-endpoints', '/portal/endpoints'],
      ['portal-add-endpoint', '/portal/endpoints/new'],
      ['portal-endpoint', `/portal/endpoints/${endpoint.id}`],
      ['portal-remove-endpoint', `/portal/endpoints/${endpoint.id}/remove`],
      ['portal-deliveries', '/portal/deliveries'],
      ['portal-delivery', `/portal/deliveries/${deliveryId}`],
      ['portal-replay', '/portal/replay'],
      ['portal-replay-progress', replay.headers().location as string],
      ['portal-event-types', '/portal/event-types'],
    ];
    for (const [name, path] of pages) {
      await page.goto(`${server.origin}${path}`);
      await checkKeyboard(page, name);
      if (!['portal-endpoint', 'portal-add-endpoint', 'portal-replay'].includes(name)) {
        await checkEnterSubmits(page, name, path);
      }
    }

    await page.setViewportSize({ width: 375, height: 800 });
    const wide: string[] = [];
    for (const [name, path] of pages) {
      await page.goto(`${server.origin}${path}`);
      await saveScreenshot(page, `narrow-${name}`);
      const width = await page.evaluate<number>('document.documentElement.scrollWidth');
      if (width > 375) wide.push(`${name}: ${width} px`);
    }
    expect(wide).toEqual([]);
    await page.context().close();
  });
});

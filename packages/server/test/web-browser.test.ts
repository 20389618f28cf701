import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIdGenerator } from '../src/ids.js';
import { inviteUser } from '../src/users/user-actions.js';
import {
  type BrowserServer,
  browserAvailable,
  createTestUser,
  saveScreenshot,
  seriousViolations,
  sessionCookie,
  signIn,
  startBrowserServer,
  useBrowser,
} from './support/browser.js';

// The sign-in flows of the web application in headless Chromium (see test/support/browser.ts):
// every page checked with axe-core (no serious or critical violation), screenshots saved under
// test-output/screenshots/.
const navigationLabels = [
  'Service accounts',
  'Users',
  'Webhook endpoints',
  'Deliveries',
  'EHR receipts',
  'Audit log',
];
// The data pages: every role reads contacts and deals.
const dataLabels = ['Contacts', 'Deals'];

// A real browser on a shared machine: each flow gets two minutes.
describe.skipIf(!browserAvailable)('the web application in Chromium', { timeout: 120_000 }, () => {
  const browser = useBrowser();
  let server: BrowserServer;

  beforeAll(async () => {
    server = await startBrowserServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  async function newPage(): Promise<Page> {
    const context = await browser().newContext();
    return context.newPage();
  }

  async function sessionCount(): Promise<number> {
    const { rows } = await server.database.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM sessions',
    );
    return rows[0]?.n ?? -1;
  }

  it('invite → Choose a password → signed in, with the navigation of an ADMIN', async () => {
    const invitation = await inviteUser(
      {
        database: server.database,
        clock: server.clock,
        newId: createIdGenerator({ now: () => server.clock.now() }),
        actor: { type: 'operator' },
      },
      { email: 'ada@example.com', role: 'ADMIN', name: 'Ada Lovelace', publicUrl: server.origin },
    );
    const page = await newPage();
    await page.goto(invitation.signInUrl);
    await expect(
      page.getByRole('heading', { name: 'Choose a password' }).isVisible(),
    ).resolves.toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await saveScreenshot(page, 'choose-password');
    await page.getByLabel('Password', { exact: true }).fill('a long and good password');
    await page.getByLabel('Confirm password').fill('a long and good password');
    await Promise.all([
      page.waitForURL(`${server.origin}/`),
      page.getByRole('button', { name: 'Set password' }).click(),
    ]);
    expect(await page.getByRole('heading', { name: 'Overview' }).isVisible()).toBe(true);
    expect(await page.getByText('Hello, Ada Lovelace.').isVisible()).toBe(true);
    const navigation = page.getByRole('navigation', { name: 'Main' });
    for (const label of [...dataLabels, ...navigationLabels]) {
      expect(await navigation.getByRole('link', { name: label, exact: true }).count()).toBe(1);
    }
    expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await saveScreenshot(page, 'home-admin');

    // The link is used up.
    await page.goto(invitation.signInUrl);
    expect(
      await page.getByRole('heading', { name: 'This sign-in link cannot be used' }).isVisible(),
    ).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();
  });

  it('gives a new session id at sign-in, whatever cookie the browser had (no fixation)', async () => {
    const page = await newPage();
    const planted = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    await page
      .context()
      .addCookies([{ name: 'followup_session', value: planted, url: server.origin }]);
    await page.goto(`${server.origin}/signin`);
    expect(await seriousViolations(page)).toEqual([]);
    await saveScreenshot(page, 'signin');
    await signIn(page, server, 'MANAGER');
    const fresh = await sessionCookie(page.context(), server.origin);
    expect(fresh).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(fresh).not.toBe(planted);
    const { rows } = await server.database.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM sessions WHERE current_sha256 = sha256($1::bytea)',
      [Buffer.from(planted)],
    );
    expect(rows).toEqual([{ n: 0 }]);
    await page.context().close();
  });

  it('shows a name as text, never as markup', async () => {
    const page = await newPage();
    const user = await createTestUser(server, 'ADMIN', {
      name: '<img src=x onerror="window.__xss=1">',
    });
    await signIn(page, server, user);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(
      await page.getByText('<img src=x onerror="window.__xss=1">', { exact: false }).count(),
    ).toBeGreaterThan(0);
    await page.context().close();
  });

  it('signs out with the Sign out button: the session is gone server-side, the old cookie is useless', async () => {
    const page = await newPage();
    await signIn(page, server, 'ADMIN');
    const cookie = await sessionCookie(page.context(), server.origin);
    const before = await sessionCount();
    await Promise.all([
      page.waitForURL(`${server.origin}/signin`),
      page.getByRole('button', { name: 'Sign out' }).click(),
    ]);
    expect(await sessionCount()).toBe(before - 1);
    const replay = await browser().newContext();
    await replay.addCookies([
      { name: 'followup_session', value: cookie as string, url: server.origin },
    ]);
    const replayPage = await replay.newPage();
    await replayPage.goto(`${server.origin}/`);
    expect(new URL(replayPage.url()).pathname).toBe('/signin');
    await replay.close();
    await page.context().close();
  });

  it('refuses CSRF: a fetch without X-CSRF-Token and a form from another origin get 403 csrf_invalid', async () => {
    const page = await newPage();
    await signIn(page, server, 'AGENT');
    // A string: the function runs in the page, where the DOM's types are (not in this package's).
    const results = await page.evaluate(`(async () => {
      const body = JSON.stringify({ firstName: 'Ada', lastName: 'Lovelace' });
      const headers = { 'content-type': 'application/json' };
      const without = await fetch('/api/contacts', { method: 'POST', body, headers });
      const token = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';
      const withToken = await fetch('/api/contacts', {
        method: 'POST',
        body,
        headers: { ...headers, 'x-csrf-token': token },
      });
      return { without: [without.status, (await without.json()).code], withToken: withToken.status };
    })()`);
    expect(results).toEqual({ without: [403, 'csrf_invalid'], withToken: 201 });

    // Another origin on the same site (another port): the cookie goes with the form, the
    // Origin check refuses it, and the session survives.
    const sessionsBefore = await sessionCount();
    const attacker: Server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(
        `<!doctype html><title>attacker</title><form method="post" action="${server.origin}/signout">` +
          '<button>go</button></form><script>document.forms[0].submit()</script>',
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    const attackerPort = (attacker.address() as AddressInfo).port;
    const response = page.waitForResponse(`${server.origin}/signout`);
    await page.goto(`http://127.0.0.1:${attackerPort}/`);
    const refused = await response;
    expect(refused.status()).toBe(403);
    expect((await refused.json()).code).toBe('csrf_invalid');
    expect(await sessionCount()).toBe(sessionsBefore);
    await new Promise((resolve) => attacker.close(resolve));
    await page.context().close();
  });

  it('answers the 403 page to a role without the capability, and hides the links it may not use', async () => {
    const page = await newPage();
    await signIn(page, server, 'AGENT');
    const navigation = page.getByRole('navigation', { name: 'Main' });
    for (const label of navigationLabels) {
      expect(await navigation.getByRole('link', { name: label, exact: true }).count()).toBe(0);
    }
    for (const label of dataLabels) {
      expect(await navigation.getByRole('link', { name: label, exact: true }).count()).toBe(1);
    }
    const response = await page.goto(`${server.origin}/audit-log`);
    expect(response?.status()).toBe(403);
    expect(await page.getByRole('heading', { name: 'Not allowed' }).isVisible()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await saveScreenshot(page, 'forbidden');
    await page.context().close();
  });

  it('shows the 429 page after too many failed sign-ins', async () => {
    const page = await newPage();
    const user = await createTestUser(server, 'READONLY');
    for (let attempt = 0; attempt < 5; attempt++) {
      await page.goto(`${server.origin}/signin`);
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(`wrong password ${attempt}`);
      await Promise.all([
        page.waitForLoadState(),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      expect(await page.getByRole('alert').textContent()).toBe(
        'The e-mail address or the password is wrong.',
      );
    }
    await page.goto(`${server.origin}/signin`);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    const response = page.waitForResponse(
      (candidate) =>
        candidate.url() === `${server.origin}/signin` && candidate.request().method() === 'POST',
    );
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect((await response).status()).toBe(429);
    expect(await page.getByRole('heading', { name: 'Too many attempts' }).isVisible()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await saveScreenshot(page, 'too-many-attempts');
    await page.context().close();
  });
});

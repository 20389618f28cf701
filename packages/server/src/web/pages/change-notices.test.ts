// A success message after each change the console makes: kept as a one-time flash by the
// action, shown once in a role="status" region of the page it redirects to, never on reload.
import { describe, expect, it } from 'vitest';
import { type ConsoleBrowser, consoleBrowser } from '../../../test/support/console.js';
import { useTestServer } from '../../../test/support/server.js';
import { createEndpointStore } from '../../delivery/webhook-endpoints.js';
import { createIdGenerator } from '../../ids.js';

function noticeOf(html: string): string | undefined {
  return /<p class="notice success" role="status">([^<]*)<\/p>/.exec(html)?.[1];
}

describe('success notices after each change', () => {
  const server = useTestServer();

  // Posts a change, follows its redirect once (the notice), then once more (a reload: none).
  async function change(browser: ConsoleBrowser, path: string, fields?: Record<string, string>) {
    const posted = await browser.post(path, fields);
    expect(posted.statusCode, path).toBe(303);
    const location = String(posted.headers.location);
    const page = await browser.get(location);
    expect(page.statusCode, location).toBe(200);
    const reloaded = await browser.get(location);
    expect(noticeOf(reloaded.body), `${location} reloaded`).toBeUndefined();
    return { location, notice: noticeOf(page.body) };
  }

  it('says what the service account pages did: create, issue, roll, revoke, disable', async () => {
    const browser = await consoleBrowser(server(), 'ADMIN');
    const created = await change(browser, '/service-accounts', { name: 'crm sync', role: 'AGENT' });
    expect(created.notice).toBe('Service account crm sync created. Issue it a token below.');
    const account = created.location;

    const issued = await change(browser, `${account}/tokens`, { expires: '90d' });
    expect(issued.notice).toMatch(/^Token tok_[0-9A-Z]{26} issued\.$/);
    const [first] = await server().accounts.listTokens(account.split('/')[2] ?? '');
    const tokenPath = `${account}/tokens/${first?.id}`;

    const rolled = await change(browser, `${tokenPath}/roll`, { grace: '1h' });
    expect(rolled.notice).toMatch(
      new RegExp(`^Token ${first?.id} rolled: tok_\\w+ replaces it\\.$`),
    );

    const revoked = await change(browser, `${tokenPath}/revoke`);
    expect(revoked.notice).toBe(`Token ${first?.id} revoked: calls with it now fail with 401.`);

    const disabled = await change(browser, `${account}/disable`);
    expect(disabled.notice).toBe('Account disabled; 1 token revoked.');
  });

  it('says what the Users page did: invite, change role, revoke sessions, disable', async () => {
    const browser = await consoleBrowser(server(), 'ADMIN');
    const invited = await change(browser, '/users/invite', {
      email: 'grace@example.com',
      role: 'AGENT',
    });
    expect(invited.notice).toBe('grace@example.com invited as AGENT.');
    const { rows } = await server().database.query<{ id: string }>(
      `SELECT id FROM users WHERE email = 'grace@example.com'`,
    );
    const user = `/users/${rows[0]?.id}`;
    expect((await change(browser, `${user}/role`, { role: 'MANAGER' })).notice).toBe(
      'grace@example.com is now MANAGER.',
    );
    expect((await change(browser, `${user}/sessions/revoke`)).notice).toBe('0 sessions ended.');
    expect((await change(browser, `${user}/disable`)).notice).toBe('grace@example.com disabled.');
  });

  it('says what the Webhook endpoints pages did: add, rotate, disable, enable, test, remove', async () => {
    const { database, clock } = server();
    const newId = createIdGenerator({ now: () => clock.now() });
    const browser = await consoleBrowser(server(), 'ADMIN');
    const added = await change(browser, '/webhook-endpoints', {
      url: 'https://crm.example.com/hooks',
    });
    const [endpoint] = await createEndpointStore({ database, clock, newId }).list();
    expect(added.notice).toBe(`Endpoint ${endpoint?.id} added.`);
    const path = `/webhook-endpoints/${endpoint?.id}`;
    expect((await change(browser, `${path}/rotate-secret`, { back: 'detail' })).notice).toBe(
      `Secret of ${endpoint?.id} rotated.`,
    );
    expect((await change(browser, `${path}/disable`, { back: 'detail' })).notice).toBe(
      `Endpoint ${endpoint?.id} disabled.`,
    );
    expect((await change(browser, `${path}/enable`)).notice).toBe(
      `Endpoint ${endpoint?.id} enabled.`,
    );
    const tested = await change(browser, `${path}/test`);
    expect(tested.location).toMatch(/^\/deliveries\/dlv_/);
    expect(tested.notice).toBe(`Test event queued for ${endpoint?.id}.`);
    const retried = await change(browser, `${tested.location}/retry`);
    expect(retried.notice).toBe(
      `Delivery ${tested.location.split('/')[2]} queued to be sent again now.`,
    );
    expect((await change(browser, `${path}/remove`)).notice).toBe(
      `Endpoint ${endpoint?.id} removed.`,
    );
  });
});

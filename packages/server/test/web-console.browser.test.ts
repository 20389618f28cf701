// The web console in a real browser (headless Chromium through playwright-core): every page and
// the main flow (invite → set password → create account → issue token → use it with the SDK →
// revoke → 401), axe on every page, keyboard reach, and stored XSS payloads in every field the
// pages display, on the browser harness of test/support/browser.ts (screenshots in test-output/).
import { AuthenticationError, FollowUp } from '@followup/sdk';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../src/build-server.js';
import { systemClock } from '../src/clock.js';
import { createIdGenerator } from '../src/ids.js';
import { createPortalLink } from '../src/portal/portal-links.js';
import type { Database } from '../src/storage/database.js';
import { createAccountStore } from '../src/tokens/account-store.js';
import { inviteUser } from '../src/users/user-actions.js';
import {
  browserAvailable,
  saveScreenshot,
  seriousViolations,
  useBrowser,
} from './support/browser.js';
import { openTestDatabase, testDriver } from './support/database.js';

const password = 'a long enough password 12345';

// Every payload a stored field could carry; none may run, each must show as text.
const payloads = {
  script: '<script>window.__xss=1</script>',
  image: '"><img src=x onerror="window.__xss=2">',
  link: 'javascript:window.__xss=3',
};
const payloadText = `${payloads.script}${payloads.image}${payloads.link}`;

// Axe on a dozen pages takes a while on a shared machine; no test waits on a timer.
describe.skipIf(!browserAvailable)('web console in a browser', { timeout: 180_000 }, () => {
  let database: Database;
  let app: FastifyInstance;
  let baseUrl: string;
  const browser = useBrowser();

  beforeAll(async () => {
    database = await openTestDatabase();
    app = buildServer({
      database,
      logger: false,
      rateLimit: false,
      ehrWebhookSecrets: { athenahealth: 'athena-secret' },
    });
    baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  });

  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  const newId = createIdGenerator();

  async function invite(email: string, role: string, name?: string) {
    return inviteUser(
      { database, clock: systemClock, newId, actor: { type: 'operator' } },
      { email, role, ...(name ? { name } : {}), publicUrl: baseUrl },
    );
  }

  async function signedInPage(role: string, name?: string): Promise<Page> {
    const invitation = await invite(
      `${role.toLowerCase()}-${newId('usr')}@example.com`,
      role,
      name,
    );
    const page = await (await browser().newContext({ baseURL: baseUrl })).newPage();
    await page.addInitScript('window.__xss = 0');
    page.on('dialog', (dialog) => {
      throw new Error(`A dialog opened: ${dialog.message()}`);
    });
    await page.goto(invitation.signInUrl);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByLabel('Confirm password').fill(password);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.waitForURL(`${baseUrl}/`);
    return page;
  }

  async function expectAccessible(page: Page, name: string) {
    expect(await seriousViolations(page), name).toEqual([]);
    expect(await page.evaluate('window.__xss'), name).toBe(0);
    await saveScreenshot(page, `console-${testDriver}-${name}`);
  }

  it('invite → password → create account → issue token → SDK → revoke → 401 token_revoked', async () => {
    const page = await signedInPage('ADMIN', 'Ada Admin');
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Service accounts' })
      .click();
    await expectAccessible(page, 'service-accounts-empty');
    await page.getByRole('button', { name: 'Create service account' }).click();
    await page.getByLabel('Name').fill('crm sync');
    await page.getByLabel('Role').selectOption('MANAGER');
    await expectAccessible(page, 'create-service-account');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await expect.poll(() => page.url()).toMatch(/\/service-accounts\/sa_/);

    await page.getByLabel('Label').fill('ci deploy');
    await page.getByLabel('Expires in').selectOption({ label: '30 days' });
    await page.getByRole('button', { name: 'Issue', exact: true }).click();
    const token = (await page.locator('#new-token').textContent()) ?? '';
    expect(token).toMatch(/^hns_sa_/);
    await expect.poll(() => page.getByText('this is the only time it is shown').count()).toBe(1);
    await expectAccessible(page, 'token-issued');

    const client = new FollowUp({ token, baseUrl, maxRetries: 0 });
    expect(await client.me()).toMatchObject({ name: 'crm sync', role: 'MANAGER' });
    await client.contacts.list({ limit: 1 });

    await page.reload();
    expect(await page.locator('#new-token').count()).toBe(0);
    expect(await page.content()).not.toContain(token);
    await expect.poll(() => page.locator('table').getByText('ci deploy').count()).toBe(1);

    // Revoke is in the row's menu, and asks first.
    await page.locator('summary', { hasText: /^More actions for tok_/ }).click();
    await page.getByRole('button', { name: /^Revoke tok_/ }).click();
    await expectAccessible(page, 'revoke-token');
    await page.getByRole('button', { name: 'Revoke token' }).click();
    const error = await client.me().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(AuthenticationError.isInstance(error)).toBe(true);
    expect((error as AuthenticationError).code).toBe('token_revoked');
  });

  it('reaches every control of the service account page with the keyboard', async () => {
    const store = createAccountStore({ database });
    const account = await store.createAccount({ name: 'keyboard', role: 'AGENT' });
    await store.issueToken({ accountId: account.id, label: 'one' });
    const page = await signedInPage('ADMIN');
    await page.goto(`/service-accounts/${account.id}`);
    const reached = new Set<string>();
    for (let press = 0; press < 40; press++) {
      await page.keyboard.press('Tab');
      reached.add(
        await page.evaluate<string>(`(() => {
          const element = document.activeElement;
          if (!element) return '';
          const field = ['INPUT', 'SELECT', 'TEXTAREA'].includes(element.tagName);
          return element.tagName + ' ' + (field ? element.id : element.textContent.trim());
        })()`),
      );
    }
    expect([...reached].some((control) => /^SUMMARY More actions for tok_/.test(control))).toBe(
      true,
    );
    for (const control of [
      'BUTTON Roll',
      'INPUT label',
      'SELECT expires',
      'BUTTON Issue',
      'BUTTON Disable account',
      'BUTTON Sign out',
      'A Service accounts',
    ]) {
      expect([...reached], control).toContain(control);
    }
  });

  it('shows stored payloads as text on every page, runs none, and passes axe', async () => {
    // Payloads in every displayed field: user names, account names and token labels (and so
    // audit metadata), endpoint URLs, EHR vendor keys, header values and bodies.
    const store = createAccountStore({ database });
    const account = await store.createAccount({ name: payloadText, role: 'AGENT' });
    const labelled = await store.issueToken({
      accountId: account.id,
      label: payloadText.slice(0, 100),
    });
    await invite(`x-${newId('usr')}@example.com`, 'AGENT', payloadText);
    await database.query(
      `INSERT INTO webhook_endpoints (id, url, events, state, secret, created_at, updated_at)
       VALUES ('we_xss', $1, ARRAY['contact.created'], 'active', 'whsec_x', now(), now())`,
      [`${payloads.link}//${payloads.script}`],
    );
    await database.query(
      `INSERT INTO outbox_events (id, event, data, created_at) VALUES ('evt_xss', 'contact.created', '{}', now());
       INSERT INTO deliveries (id, event_id, endpoint_id, state, attempts, created_at, last_error)
       VALUES ('dlv_xss', 'evt_xss', 'we_xss', 'dead', 1, now(), 'refused')`,
    );
    await database.query(
      `INSERT INTO delivery_attempts (delivery_id, started_at, duration_ms, status, error, response_excerpt)
       VALUES ('dlv_xss', now(), 5, 500, NULL, $1)`,
      [Buffer.from(payloadText, 'utf8')],
    );
    // The API refuses such a vendor key before it is stored; a row from elsewhere (an older
    // release, a restore) must still show as text.
    await database.query(
      `INSERT INTO ehr_receipts (id, vendor, verdict, raw_body, headers, received_at)
       VALUES ('rcpt_xss', $1, 'unknown_vendor', '', '{}', now())`,
      [payloadText],
    );
    const forged = await fetch(`${baseUrl}/api/ehr/webhooks/athenahealth`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature': 'sha256=00',
        'x-note': payloadText,
      },
      body: JSON.stringify({ note: payloadText }),
    });
    expect(forged.status).toBe(401);
    const receiptId = (
      await database.query<{ id: string }>(
        `SELECT id FROM ehr_receipts WHERE vendor = 'athenahealth' ORDER BY received_at DESC LIMIT 1`,
      )
    ).rows[0]?.id;

    const page = await signedInPage('ADMIN');
    const pages: [string, string][] = [
      ['overview', '/'],
      ['service-accounts', '/service-accounts'],
      ['service-account', `/service-accounts/${account.id}`],
      ['roll-token', `/service-accounts/${account.id}/tokens/${labelled.id}/roll`],
      ['revoke-token-payload', `/service-accounts/${account.id}/tokens/${labelled.id}/revoke`],
      ['users', '/users'],
      ['invite-user', '/users/invite'],
      ['webhook-endpoints', '/webhook-endpoints'],
      ['add-endpoint', '/webhook-endpoints/new'],
      ['webhook-endpoint', '/webhook-endpoints/we_xss'],
      ['remove-endpoint', '/webhook-endpoints/we_xss/remove'],
      ['disable-endpoint', '/webhook-endpoints/we_xss/disable'],
      ['disable-account', `/service-accounts/${account.id}/disable`],
      ['deliveries', '/deliveries'],
      ['delivery', '/deliveries/dlv_xss'],
      ['ehr-receipts', '/ehr-receipts'],
      ['ehr-receipt', `/ehr-receipts/${receiptId}`],
      ['audit-log', '/audit-log'],
    ];
    for (const [name, path] of pages) {
      await page.goto(path);
      await expectAccessible(page, name);
      const text = await page.locator('main').innerText();
      if (!['invite-user', 'add-endpoint', 'deliveries', 'roll-token'].includes(name)) {
        expect(text, name).toContain(payloads.script);
      }
      expect(await page.locator('main script, main img').count(), name).toBe(0);
      expect(await page.locator('main a[href^="javascript:"]').count(), name).toBe(0);
      // The endpoint's URL shows as text, never as a link.
      if (name === 'webhook-endpoints') expect(text, name).toContain(payloads.link);
    }
  });

  // A pasted value is cut by a field's maxlength without a word: the form cut such a URL to
  // 2,048 characters and saved it.
  it('refuses a pasted endpoint URL over 2,048 characters, showing it whole with the error', async () => {
    const page = await signedInPage('ADMIN');
    await page.goto('/webhook-endpoints/new');
    const url = `https://hooks.example.com/followup?token=${'a'.repeat(2_100)}`;
    await page.getByLabel('URL').focus();
    await page.keyboard.insertText(url);
    await page.getByLabel('contact.created', { exact: true }).check();
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toContain(
      `must be at most 2,048 characters; this one has ${url.length.toLocaleString('en-US')}`,
    );
    expect(await page.getByLabel('URL').inputValue()).toBe(url);
    expect(await page.getByLabel('contact.created', { exact: true }).isChecked()).toBe(true);
    await expectAccessible(page, 'add-endpoint-refused');
    const { rows } = await database.query(
      "SELECT id FROM webhook_endpoints WHERE url LIKE 'https://hooks.example.com/followup?token=%'",
    );
    expect(rows).toEqual([]);
  });

  it('answers the 403 page to a role without the capability, and hides its navigation', async () => {
    const page = await signedInPage('MANAGER');
    const navigation = page.getByRole('navigation', { name: 'Main' });
    expect(await navigation.getByRole('link', { name: 'Service accounts' }).count()).toBe(0);
    expect(await navigation.getByRole('link', { name: 'Audit log' }).count()).toBe(1);
    const response = await page.goto('/service-accounts');
    expect(response?.status()).toBe(403);
    await expectAccessible(page, 'forbidden');
  });

  it('shows stored payloads as text on every portal page, runs none, and passes axe', async () => {
    // A subscriber's endpoint whose URL, description and header carry the payloads, and a
    // delivery to it whose receiver answered them.
    await database.query(
      `INSERT INTO webhook_endpoints
         (id, url, events, state, secret, created_at, updated_at, subscriber, description, headers)
       VALUES ('we_pxss', $1, ARRAY['contact.created'], 'active', 'whsec_x', now(), now(), 'acme',
               $2, $3)`,
      [
        `${payloads.link}//${payloads.script}`,
        payloadText,
        JSON.stringify({ 'X-Note': payloadText }),
      ],
    );
    await database.query(
      `INSERT INTO outbox_events (id, event, data, created_at)
         VALUES ('evt_pxss', 'contact.created', $1, now())`,
      [JSON.stringify({ id: 'con_x', firstName: payloadText, lastName: 'L' })],
    );
    await database.query(
      `INSERT INTO deliveries (id, event_id, endpoint_id, state, attempts, created_at, last_error)
       VALUES ('dlv_pxss', 'evt_pxss', 'we_pxss', 'dead', 1, now(), 'refused')`,
    );
    await database.query(
      `INSERT INTO delivery_attempts (delivery_id, started_at, duration_ms, status, error, response_excerpt)
       VALUES ('dlv_pxss', now(), 5, 500, NULL, $1)`,
      [Buffer.from(payloadText, 'utf8')],
    );
    const link = await createPortalLink(database, {
      subscriber: 'acme',
      publicUrl: baseUrl,
      actor: { type: 'operator' },
      clock: systemClock,
      newId,
    });
    const page = await (await browser().newContext({ baseURL: baseUrl })).newPage();
    await page.addInitScript('window.__xss = 0');
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(link.url);
    await expectAccessible(page, 'portal-link');
    await page.getByRole('button', { name: 'Open the portal' }).click();
    await page.waitForURL(`${baseUrl}/portal/endpoints`);
    const pages: [string, string][] = [
      ['portal-endpoints', '/portal/endpoints'],
      ['portal-add-endpoint', '/portal/endpoints/new'],
      ['portal-endpoint', '/portal/endpoints/we_pxss'],
      ['portal-remove-endpoint', '/portal/endpoints/we_pxss/remove'],
      ['portal-deliveries', '/portal/deliveries'],
      ['portal-delivery', '/portal/deliveries/dlv_pxss'],
      ['portal-replay', '/portal/replay'],
      ['portal-event-types', '/portal/event-types'],
      ['portal-not-found', '/portal/endpoints/we_xss'],
    ];
    for (const [name, path] of pages) {
      await page.goto(path);
      await expectAccessible(page, name);
      const text = await page.locator('main').innerText();
      if (['portal-endpoints', 'portal-endpoint', 'portal-delivery'].includes(name)) {
        expect(text, name).toContain(payloads.script);
      }
      expect(await page.locator('main script, main img').count(), name).toBe(0);
      expect(await page.locator('main a[href^="javascript:"]').count(), name).toBe(0);
      if (name === 'portal-add-endpoint') {
        // The headers' label reads as one line, its `Name: value` inside it, not a row apart.
        const tops = await page
          .locator('label[for="headers"]')
          .evaluate((label) =>
            [label, label.querySelector('code')].map((node) => node?.getBoundingClientRect().top),
          );
        expect(Math.abs((tops[1] ?? 0) - (tops[0] ?? 0)), name).toBeLessThan(6);
      }
    }
    expect(violations).toEqual([]);
  });
});

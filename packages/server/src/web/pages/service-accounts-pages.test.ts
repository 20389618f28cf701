import { describe, expect, it } from 'vitest';
import { consoleBrowser } from '../../../test/support/console.js';
import { transactionsSettled } from '../../../test/support/database.js';
import { useTestServer } from '../../../test/support/server.js';
import { listAuditEntries } from '../../audit/audit-log.js';
import { parseToken } from '../../tokens/token-format.js';

describe('Service accounts pages', () => {
  const server = useTestServer();

  function tokenOf(html: string): string | undefined {
    return /<p class="secret" id="new-token">(hns_[^<]+)<\/p>/.exec(html)?.[1];
  }

  it('lists accounts, with an empty state that says what to do', async () => {
    const browser = await consoleBrowser(server(), 'ADMIN');
    const empty = await browser.get('/service-accounts');
    expect(empty.statusCode).toBe(200);
    expect(empty.headers['cache-control']).toBe('no-store');
    expect(empty.body).toContain('No service accounts yet. Create one');
    expect(empty.body).toContain('<button type="submit">Create service account</button>');
    const form = await browser.get('/service-accounts/new');
    expect(form.body).toContain('<label for="name">Name');
    expect(form.body).toContain('<label for="role">Role');
    expect(form.body).toContain('<button type="submit">Create</button>');
  });

  it('creates an account, issues a token shown once, revokes it and disables the account, audited as the user', async () => {
    const { accounts, app } = server();
    const browser = await consoleBrowser(server(), 'ADMIN');
    const created = await browser.post('/service-accounts', { name: 'crm sync', role: 'AGENT' });
    expect(created.statusCode).toBe(303);
    const path = String(created.headers.location);
    expect(path).toMatch(/^\/service-accounts\/sa_[0-9A-Z]{26}$/);
    const accountId = path.split('/')[2] ?? '';
    const list = await browser.get('/service-accounts');
    expect(list.body).toContain('crm sync');
    expect(list.body).toMatch(
      /<td data-label="Role">AGENT<\/td>\s*<td data-label="Active tokens">0<\/td>/,
    );

    const issued = await browser.post(`${path}/tokens`, {
      label: 'ci deploy',
      expires: '30d',
      days: '',
    });
    expect(issued.statusCode).toBe(303);
    expect(issued.headers.location).toBe(path);
    expect(String(issued.headers.location)).not.toContain('hns_');
    const shown = await browser.get(path);
    const token = tokenOf(shown.body);
    expect(token).toBeDefined();
    expect(shown.body).toContain('this is the only time it is shown');
    expect(shown.body).toContain('data-copy="new-token"');
    expect(parseToken(token ?? '')?.accountId).toBe(accountId);
    // Never again: not on reload.
    const reloaded = await browser.get(path);
    expect(tokenOf(reloaded.body)).toBeUndefined();
    expect(reloaded.body).not.toContain(parseToken(token ?? '')?.secret);
    expect(reloaded.body).toContain('ci deploy');

    const me = () =>
      app.inject({ method: 'GET', url: '/api/me', headers: { authorization: `Bearer ${token}` } });
    expect((await me()).json()).toMatchObject({ id: accountId, token: { label: 'ci deploy' } });
    const [info] = await accounts.listTokens(accountId);
    expect(info?.expiresAt).toBe(new Date(server().clock.now() + 30 * 86_400_000).toISOString());

    const confirm = await browser.get(`${path}/tokens/${info?.id}/revoke`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('<button type="submit" class="danger">Revoke token</button>');
    expect((await me()).statusCode).toBe(200);
    const revoked = await browser.post(`${path}/tokens/${info?.id}/revoke`);
    expect(revoked.statusCode).toBe(303);
    expect((await me()).json()).toMatchObject({ status: 401, code: 'token_revoked' });

    await browser.post(`${path}/tokens`, { expires: 'never' });
    await browser.get(path);
    const disabled = await browser.post(`${path}/disable`);
    expect(disabled.statusCode).toBe(303);
    expect((await accounts.getAccount(accountId))?.disabledAt).not.toBeNull();
    expect((await accounts.listAccounts())[0]?.activeTokens).toBe(0);
    const after = await browser.get(path);
    expect(after.body).toContain('disabled');
    expect(after.body).not.toContain('<button type="submit">Issue</button>');

    await transactionsSettled(server().database);
    const { entries } = await listAuditEntries(server().database);
    expect(entries.map((entry) => [entry.action, entry.actor])).toEqual(
      [
        'service_account.created',
        'token.issued',
        'token.revoked',
        'token.issued',
        'service_account.disabled',
      ].map((action) => [action, { type: 'user', id: browser.session.userId }]),
    );
  });

  it('starts Issue token on 90 days, still offering Never, with the custom days apart', async () => {
    const { accounts } = server();
    const browser = await consoleBrowser(server(), 'ADMIN');
    const account = await accounts.createAccount({ name: 'crm sync', role: 'AGENT' });
    const page = await browser.get(`/service-accounts/${account.id}`);
    expect([...page.body.matchAll(/<option value="(\w+)" selected>/g)].map((m) => m[1])).toEqual([
      '90d',
    ]);
    expect(page.body).toContain('<option value="never">Never</option>');
    // The field the stylesheet hides until "Custom number of days" is chosen.
    expect(page.body).toMatch(
      /<div class="custom-days">\s*<label for="days">Custom number of days/,
    );
  });

  it('issues with a custom number of days, and refuses a bad one with a page, not a 500', async () => {
    const { accounts } = server();
    const account = await accounts.createAccount({ name: 'a', role: 'READONLY' });
    const browser = await consoleBrowser(server(), 'ADMIN');
    const path = `/service-accounts/${account.id}`;
    for (const days of ['0', '3651', '1.5', 'x', '']) {
      const refused = await browser.post(`${path}/tokens`, { expires: 'custom', days });
      expect(refused.statusCode, days).toBe(400);
      expect(refused.body).toContain('Custom number of days');
    }
    expect((await browser.post(`${path}/tokens`, { expires: 'forever' })).statusCode).toBe(400);
    const long = await browser.post(`${path}/tokens`, { expires: 'never', label: 'x'.repeat(101) });
    expect(long.statusCode).toBe(400);
    expect(await accounts.listTokens(account.id)).toEqual([]);
    expect(
      (await browser.post(`${path}/tokens`, { expires: 'custom', days: '7' })).statusCode,
    ).toBe(303);
    expect((await accounts.listTokens(account.id))[0]?.expiresAt).toBe(
      new Date(server().clock.now() + 7 * 86_400_000).toISOString(),
    );
    expect((await browser.post('/service-accounts', { name: '', role: 'ADMIN' })).statusCode).toBe(
      400,
    );
    expect((await browser.post('/service-accounts', { name: 'x', role: 'OWNER' })).statusCode).toBe(
      400,
    );
    expect((await browser.get('/service-accounts/sa_missing')).statusCode).toBe(404);
    expect((await browser.post('/service-accounts/sa_missing/disable')).statusCode).toBe(404);
  });

  it('rolls a token: the replacement shown once, the old one expiring after the grace', async () => {
    const { accounts, clock, app } = server();
    const account = await accounts.createAccount({ name: 'deploys', role: 'AGENT' });
    const old = await accounts.issueToken({ accountId: account.id, label: 'ci' });
    const browser = await consoleBrowser(server(), 'ADMIN');
    const path = `/service-accounts/${account.id}`;
    const form = await browser.get(`${path}/tokens/${old.id}/roll`);
    expect(form.body).toContain('<label for="grace">Grace period');
    expect(form.body).toContain('<button type="submit">Roll token</button>');
    for (const grace of ['24', '1.5h', '31d', '']) {
      expect((await browser.post(`${path}/tokens/${old.id}/roll`, { grace })).statusCode).toBe(400);
    }
    expect((await browser.post(`${path}/tokens/${old.id}/roll`, { grace: '90s' })).statusCode).toBe(
      303,
    );
    const token = tokenOf((await browser.get(path)).body) ?? '';
    const me = (bearer: string) =>
      app.inject({ method: 'GET', url: '/api/me', headers: { authorization: `Bearer ${bearer}` } });
    expect((await me(token)).json().token.label).toBe('ci');
    expect((await me(old.token)).statusCode).toBe(200);
    clock.advance(90_000);
    expect((await me(old.token)).json()).toMatchObject({ code: 'token_expired' });
    expect((await me(token)).statusCode).toBe(200);
    await transactionsSettled(server().database);
    const { entries } = await listAuditEntries(server().database);
    expect(entries.at(-1)).toMatchObject({
      action: 'token.rolled',
      actor: { type: 'user', id: browser.session.userId },
    });
  });

  it('shows the 403 page to a role without users.manage, and sends the signed-out to /signin', async () => {
    for (const role of ['MANAGER', 'AGENT', 'READONLY'] as const) {
      const browser = await consoleBrowser(server(), role);
      const page = await browser.get('/service-accounts');
      expect(page.statusCode).toBe(403);
      expect(page.body).toContain('users.manage');
      expect(
        (await browser.post('/service-accounts', { name: 'x', role: 'ADMIN' })).statusCode,
      ).toBe(403);
    }
    const anonymous = await server().app.inject({ method: 'GET', url: '/service-accounts' });
    expect(anonymous.statusCode).toBe(303);
    expect(anonymous.headers.location).toMatch(/^\/signin/);
    expect(await server().accounts.listAccounts()).toEqual([]);
  });

  it('refuses a form without the CSRF token: 403 csrf_invalid, and nothing is created', async () => {
    const browser = await consoleBrowser(server(), 'ADMIN');
    const response = await server().app.inject({
      method: 'POST',
      url: '/service-accounts',
      payload: 'name=x&role=ADMIN',
      headers: {
        cookie: `followup_session=${browser.session.cookieValue}`,
        origin: 'http://localhost:80',
        'content-type': 'application/x-www-form-urlencoded',
      },
    });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ code: 'csrf_invalid' });
    expect(await server().accounts.listAccounts()).toEqual([]);
  });

  it('shows stored names and labels as text', async () => {
    const { accounts } = server();
    const payload = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';
    const account = await accounts.createAccount({ name: payload, role: 'AGENT' });
    await accounts.issueToken({ accountId: account.id, label: payload });
    const browser = await consoleBrowser(server(), 'ADMIN');
    for (const path of ['/service-accounts', `/service-accounts/${account.id}`]) {
      const page = await browser.get(path);
      expect(page.body).not.toContain('<script>alert');
      expect(page.body).not.toContain('<img src=x');
      expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x');
    }
  });
});

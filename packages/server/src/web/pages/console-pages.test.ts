import { WEBHOOK_EVENT_KINDS } from '@followup/sdk';
import { describe, expect, it } from 'vitest';
import { consoleBrowser } from '../../../test/support/console.js';
import { transactionsSettled } from '../../../test/support/database.js';
import { useTestServer } from '../../../test/support/server.js';
import { listAuditEntries } from '../../audit/audit-log.js';
import { createEndpointStore } from '../../delivery/webhook-endpoints.js';

const payload = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';
const escaped = '&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;';

describe('Users page', () => {
  const server = useTestServer();

  it('invites a user with the link shown once, changes a role and disables, audited as the user', async () => {
    const browser = await consoleBrowser(server(), 'ADMIN');
    const form = await browser.get('/users/invite');
    for (const label of ['Email', 'Name', 'Role']) expect(form.body).toContain(`">${label}\n`);
    const invited = await browser.post('/users/invite', {
      email: 'grace@example.com',
      name: payload,
      role: 'AGENT',
    });
    expect(invited.statusCode).toBe(303);
    expect(invited.headers.location).toBe('/users');
    const shown = await browser.get('/users');
    const link = /id="sign-in-link">([^<]+)</.exec(shown.body)?.[1];
    expect(link).toMatch(/^http:\/\/localhost(:80)?\/signin\/[A-Za-z0-9_-]{43}$/);
    expect(shown.body).toContain(escaped);
    expect(shown.body).not.toContain('<script>alert');
    const again = await browser.get('/users');
    expect(again.body).not.toContain('id="sign-in-link"');

    const userId = /action="\/users\/(usr_[0-9A-Z]{26})\/role"/.exec(again.body)?.[1] ?? '';
    expect((await browser.post(`/users/${userId}/role`, { role: 'MANAGER' })).statusCode).toBe(303);
    expect((await browser.post(`/users/${userId}/role`, { role: 'OWNER' })).statusCode).toBe(400);
    expect((await browser.post(`/users/${userId}/sessions/revoke`)).statusCode).toBe(303);
    expect((await browser.post(`/users/${userId}/disable`)).statusCode).toBe(303);
    expect((await browser.post('/users/usr_missing/disable')).statusCode).toBe(404);
    await transactionsSettled(server().database);
    const { entries } = await listAuditEntries(server().database);
    expect(
      entries
        .filter((entry) => entry.target.id === userId)
        .map((entry) => [entry.action, entry.actor]),
    ).toEqual(
      ['user.invited', 'user.role_changed', 'user.sessions_revoked', 'user.disabled'].map(
        (action) => [action, { type: 'user', id: browser.session.userId }],
      ),
    );
    expect((await browser.get('/users')).body).toMatch(
      /grace@example.com<\/td>\s*<td data-label="Role">MANAGER<\/td>\s*<td data-label="State">disabled/,
    );
  });

  it('refuses a bad invitation with a page', async () => {
    const browser = await consoleBrowser(server(), 'ADMIN');
    const bad = await browser.post('/users/invite', { email: 'not an address', role: 'AGENT' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('email');
  });
});

describe('Webhook endpoints and deliveries pages', () => {
  const server = useTestServer();

  it('says in the empty states that every event kind makes a delivery, not only a new contact', async () => {
    const browser = await consoleBrowser(server(), 'ADMIN');
    for (const path of ['/webhook-endpoints', '/deliveries']) {
      const page = await browser.get(path);
      expect(page.statusCode).toBe(200);
      const empty = /<p class="notice">([\s\S]*?)<\/p>/.exec(page.body)?.[1] ?? '';
      expect(empty, path).toMatch(/^No (endpoints|deliveries) yet\./);
      for (const kind of WEBHOOK_EVENT_KINDS) expect(empty, path).toContain(kind);
      expect(empty, path).not.toContain('new contact');
    }
  });

  it('adds an endpoint with its secret shown once, rotates it, disables and enables it', async () => {
    const browser = await consoleBrowser(server(), 'ADMIN');
    expect((await browser.get('/webhook-endpoints')).body).toContain('No endpoints yet.');
    const form = await browser.get('/webhook-endpoints/new');
    expect(form.body).toContain('<legend>Events</legend>');
    const added = await browser.post('/webhook-endpoints', {
      url: 'https://crm.example.com/hooks',
      events: ['contact.created'],
    });
    expect(added.statusCode).toBe(303);
    const shown = await browser.get('/webhook-endpoints');
    const secret = /id="signing-secret">(whsec_[^<]+)</.exec(shown.body)?.[1];
    expect(secret).toBeDefined();
    expect((await browser.get('/webhook-endpoints')).body).not.toContain(secret);
    const [endpoint] = await createEndpointStore({ database: server().database }).list();
    expect(endpoint).toMatchObject({
      url: 'https://crm.example.com/hooks',
      events: ['contact.created'],
    });
    const id = endpoint?.id ?? '';
    await browser.post(`/webhook-endpoints/${id}/rotate-secret`);
    const rotated = await browser.get('/webhook-endpoints');
    const fresh = /id="signing-secret">(whsec_[^<]+)</.exec(rotated.body)?.[1];
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(secret);
    expect(rotated.body).toContain('The previous secret signs too until');
    await browser.post(`/webhook-endpoints/${id}/disable`);
    expect((await browser.get('/webhook-endpoints')).body).toContain(`aria-label="Enable ${id}"`);
    await browser.post(`/webhook-endpoints/${id}/enable`);
    expect((await browser.get('/webhook-endpoints')).body).toContain(`aria-label="Disable ${id}"`);
    const tested = await browser.post(`/webhook-endpoints/${id}/test`);
    expect(tested.statusCode).toBe(303);
    const deliveryPath = String(tested.headers.location);
    expect(deliveryPath).toMatch(/^\/deliveries\/dlv_[0-9A-Z]{26}$/);
    expect((await browser.get(deliveryPath)).body).toContain('webhook.test');
    expect((await browser.post(`${deliveryPath}/retry`)).statusCode).toBe(303);
    const refusedSince = await browser.post('/deliveries/recover', {
      endpoint: id,
      since: 'yesterday',
    });
    expect(refusedSince.statusCode).toBe(400);
    const recovered = await browser.post('/deliveries/recover', {
      endpoint: id,
      since: '2026-03-01T00:00',
    });
    expect(recovered.statusCode).toBe(303);
    expect(recovered.headers.location).toBe(`/deliveries?endpoint=${id}`);
    const confirm = await browser.get(`/webhook-endpoints/${id}/remove`);
    expect(confirm.body).toContain('<button type="submit" class="danger">Remove endpoint</button>');
    expect((await browser.post(`/webhook-endpoints/${id}/remove`)).statusCode).toBe(303);
    expect(await createEndpointStore({ database: server().database }).list()).toEqual([]);
    expect((await browser.get(`/webhook-endpoints/${id}/remove`)).statusCode).toBe(404);
    await transactionsSettled(server().database);
    const { entries } = await listAuditEntries(server().database);
    const user = { type: 'user', id: browser.session.userId };
    expect(
      entries
        .filter((entry) => entry.actor.type === 'user')
        .map((entry) => [entry.action, entry.actor]),
    ).toEqual(
      [
        'endpoint.created',
        'endpoint.secret_rotated',
        'endpoint.disabled',
        'endpoint.enabled',
        'endpoint.test_sent',
        'delivery.retried',
        'deliveries.recovered',
        'endpoint.removed',
      ].map((action) => [action, user]),
    );
    expect(JSON.stringify(entries)).not.toContain(fresh);
    const refused = await browser.post('/webhook-endpoints', { url: 'ftp://example.com' });
    expect(refused.statusCode).toBe(400);
    expect((await browser.post('/webhook-endpoints/we_missing/disable')).statusCode).toBe(404);
  });

  it('lists deliveries by endpoint and state, shows attempts, and retries one now', async () => {
    const { database } = server();
    await database.query(
      `INSERT INTO webhook_endpoints (id, url, events, state, secret, created_at, updated_at)
       VALUES ('we_1', 'https://a.example/h', ARRAY['contact.created'], 'active', 'whsec_a', now(), now()),
              ('we_2', $1, ARRAY['contact.created'], 'active', 'whsec_b', now(), now())`,
      [`https://b.example/${payload}`],
    );
    await database.query(
      `INSERT INTO outbox_events (id, event, data, created_at) VALUES ('evt_1', 'contact.created', '{}', now())`,
    );
    await database.query(
      `INSERT INTO deliveries (id, event_id, endpoint_id, state, attempts, created_at, last_status)
       VALUES ('dlv_1', 'evt_1', 'we_1', 'dead', 2, now(), 500),
              ('dlv_2', 'evt_1', 'we_2', 'delivered', 1, now(), 200)`,
    );
    await database.query(
      `INSERT INTO delivery_attempts (delivery_id, started_at, duration_ms, status, error, response_excerpt)
       VALUES ('dlv_1', now(), 12, 500, NULL, convert_to($1, 'UTF8')), ('dlv_1', now(), 30000, NULL, $1, NULL)`,
      [payload],
    );
    const browser = await consoleBrowser(server(), 'ADMIN');
    const all = await browser.get('/deliveries');
    expect(all.body).toContain('dlv_1');
    expect(all.body).toContain('dlv_2');
    expect(all.body).toContain(escaped);
    expect(all.body).not.toContain('<img src=x');
    const dead = await browser.get('/deliveries?state=dead&endpoint=we_1');
    expect(dead.body).toContain('dlv_1');
    expect(dead.body).not.toContain('>dlv_2<');
    expect((await browser.get('/deliveries?state=bogus')).statusCode).toBe(400);
    const one = await browser.get('/deliveries/dlv_1');
    expect(one.body).toContain('<th scope="col">Status code</th>');
    expect(one.body).toContain('30000 ms');
    expect(one.body).toContain('<th scope="col">Answer (start)</th>');
    expect(one.body).toContain(`<pre>${escaped}</pre>`);
    expect(one.body).toContain(escaped);
    expect((await browser.post('/deliveries/dlv_1/retry')).statusCode).toBe(303);
    const { rows } = await database.query<{ state: string }>(
      `SELECT state FROM deliveries WHERE id = 'dlv_1'`,
    );
    expect(rows[0]?.state).toBe('pending');
    expect((await browser.get('/deliveries/dlv_missing')).statusCode).toBe(404);
  });

  it('is a 403 page for a role without webhooks.manage or users.manage', async () => {
    const browser = await consoleBrowser(server(), 'MANAGER');
    for (const path of ['/webhook-endpoints', '/deliveries', '/users']) {
      expect((await browser.get(path)).statusCode, path).toBe(403);
    }
    // The 403 page names what the endpoint and delivery pages need.
    expect((await browser.get('/deliveries')).body).toContain('webhooks.manage');
  });
});

describe('EHR receipts and Audit log pages', () => {
  const server = useTestServer({ ehrWebhookSecrets: { athenahealth: 'athena-secret' } });

  it('lists receipts by vendor and outcome and shows one with headers redacted and the body as text', async () => {
    const { app } = server();
    await app.inject({
      method: 'POST',
      url: '/api/ehr/webhooks/athenahealth',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature': 'sha256=00',
        'x-note': payload,
      },
      payload: JSON.stringify({ note: payload }),
    });
    await app.inject({
      method: 'POST',
      url: `/api/ehr/webhooks/${encodeURIComponent(payload)}`,
      payload: '{}',
      headers: { 'content-type': 'application/json' },
    });
    const browser = await consoleBrowser(server(), 'MANAGER');
    const list = await browser.get('/ehr-receipts');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain(escaped);
    expect(list.body).not.toContain('<script>alert');
    const athena = await browser.get('/ehr-receipts?vendor=athenahealth&outcome=invalid_signature');
    const id = /href="\/ehr-receipts\/(rcpt_[0-9A-Z]{26})"/.exec(athena.body)?.[1];
    expect(id).toBeDefined();
    expect(athena.body.match(/href="\/ehr-receipts\/rcpt_/g)).toHaveLength(1);
    expect((await browser.get('/ehr-receipts?outcome=valid')).body).toContain('No receipt matches');
    expect((await browser.get('/ehr-receipts?since=yesterday')).statusCode).toBe(400);
    const receipt = await browser.get(`/ehr-receipts/${id}`);
    expect(receipt.body).toContain('<dt>Status</dt><dd>401</dd>');
    expect(receipt.body).toMatch(/<code>x-hub-signature<\/code><\/td><td>\[redacted\]/);
    expect(receipt.body).not.toContain('sha256=00');
    expect(receipt.body).toContain(
      `<pre>{&quot;note&quot;:&quot;${escaped.replace(/&quot;/g, '\\&quot;')}`,
    );
    expect(receipt.body).not.toContain('<img src=x');
    expect((await browser.get('/ehr-receipts/rcpt_missing')).statusCode).toBe(404);
    await server().database.query(
      `INSERT INTO ehr_receipts (id, vendor, verdict, raw_body, headers, received_at)
       VALUES ('rcpt_replayed', 'athenahealth', 'replayed', '', '{}', now())`,
    );
    expect((await browser.get('/ehr-receipts/rcpt_replayed')).body).toContain(
      '<dt>Status</dt><dd>202</dd>',
    );
  });

  it('shows the audit log newest first, filtered by action and actor, in cursor pages', async () => {
    const { accounts } = server();
    for (let index = 0; index < 55; index++) {
      await accounts.createAccount({ name: `${payload}${index}`, role: 'AGENT' });
    }
    const browser = await consoleBrowser(server(), 'ADMIN');
    const first = await browser.get('/audit-log');
    // Details as a key/value list: the name as text, escaped.
    expect(first.body).toContain(`<dt>name</dt><dd>${escaped}54</dd>`);
    expect(first.body).not.toContain('<script>alert');
    expect(first.body.indexOf(`${escaped}54</dd>`)).toBeLessThan(
      first.body.indexOf(`${escaped}53</dd>`),
    );
    const older = /href="(\/audit-log\?cursor=[^"]+)">Older entries/.exec(first.body)?.[1];
    expect(older).toBeDefined();
    const second = await browser.get((older ?? '').replace(/&amp;/g, '&'));
    expect(second.body).toContain(`${escaped}0</dd>`);
    expect(second.body).not.toContain('Older entries');
    expect(second.body).toContain('Newest entries');
    const filtered = await browser.get('/audit-log?action=token.revoked');
    expect(filtered.body).toContain('No entry matches these filters');
    const byActor = await browser.get('/audit-log?actor=operator');
    expect(byActor.body).toContain('service_account.created');
    expect((await browser.get('/audit-log?cursor=nonsense!')).statusCode).toBe(400);
    // A number past the 64-bit range is as bad a cursor as any other: 400, never 500.
    for (const seq of ['9223372036854775808', '9999999999999999999']) {
      const cursor = Buffer.from(`audit:v1:before:${seq}`).toString('base64url');
      expect((await browser.get(`/audit-log?cursor=${cursor}`)).statusCode, seq).toBe(400);
    }
  });

  it('is a 403 page for a role without audit.read', async () => {
    const browser = await consoleBrowser(server(), 'AGENT');
    for (const path of ['/ehr-receipts', '/audit-log']) {
      expect((await browser.get(path)).statusCode, path).toBe(403);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { transactionsSettled } from '../../test/support/database.js';
import { useTestServer } from '../../test/support/server.js';
import { setCookieValue, webSessionFor } from '../../test/support/web.js';
import { createIdGenerator } from '../ids.js';
import { disableUser } from '../users/user-actions.js';

const inboxSecret = 'inbox-secret-for-cookie-tests';
const server = useTestServer({
  inboxWebhookSecret: inboxSecret,
  ehrWebhookSecrets: { athenahealth: 'ehr-secret-for-cookie-tests' },
});

const origin = 'http://localhost:80';
const contact = { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' };

async function contactCount(): Promise<number> {
  const { rows } = await server().database.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM contacts',
  );
  return rows[0]?.n ?? -1;
}

describe('the session cookie on /api', () => {
  it("authenticates GET /api/* with the user's role and the same capability matrix", async () => {
    const agent = await webSessionFor(server(), 'AGENT');
    const listed = await server().app.inject({
      method: 'GET',
      url: '/api/contacts',
      headers: { cookie: agent.cookie },
    });
    expect(listed.statusCode).toBe(200);
    expect(listed.headers['cache-control']).toBe('no-store');
    const audit = await server().app.inject({
      method: 'GET',
      url: '/api/audit',
      headers: { cookie: agent.cookie },
    });
    expect(audit.statusCode).toBe(403);
    expect(audit.json().code).toBe('forbidden');

    const me = await server().app.inject({
      method: 'GET',
      url: '/api/me',
      headers: { cookie: agent.cookie },
    });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ type: 'user', id: agent.userId, role: 'AGENT', token: null });
  });

  it('refuses POST without X-CSRF-Token or from another origin with 403 csrf_invalid, and creates nothing', async () => {
    const agent = await webSessionFor(server(), 'AGENT');
    const cases: Record<string, string>[] = [
      { cookie: agent.cookie, origin },
      { cookie: agent.cookie, origin, 'x-csrf-token': 'not-a-token' },
      { cookie: agent.cookie, origin: 'https://evil.example', 'x-csrf-token': agent.csrfToken },
      { cookie: agent.cookie, 'x-csrf-token': agent.csrfToken },
      {
        cookie: agent.cookie,
        origin: 'null',
        'sec-fetch-site': 'cross-site',
        'x-csrf-token': agent.csrfToken,
      },
    ];
    for (const headers of cases) {
      const refused = await server().app.inject({
        method: 'POST',
        url: '/api/contacts',
        headers,
        payload: contact,
      });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({
        code: 'csrf_invalid',
        type: 'urn:followup:problem:csrf_invalid',
      });
    }
    // Another session's token is not this session's.
    const other = await webSessionFor(server(), 'AGENT');
    const foreign = await server().app.inject({
      method: 'POST',
      url: '/api/contacts',
      headers: { cookie: agent.cookie, origin, 'x-csrf-token': other.csrfToken },
      payload: contact,
    });
    expect(foreign.statusCode).toBe(403);
    expect(await contactCount()).toBe(0);

    const created = await server().app.inject({
      method: 'POST',
      url: '/api/contacts',
      headers: { cookie: agent.cookie, origin, 'x-csrf-token': agent.csrfToken },
      payload: contact,
    });
    expect(created.statusCode).toBe(201);
    const sameSite = await server().app.inject({
      method: 'POST',
      url: '/api/contacts',
      headers: {
        cookie: agent.cookie,
        origin: 'null',
        'sec-fetch-site': 'same-origin',
        'x-csrf-token': agent.csrfToken,
      },
      payload: contact,
    });
    expect(sameSite.statusCode).toBe(201);
    expect(await contactCount()).toBe(2);
  });

  it('records actor {type: user, id} for what a session does', async () => {
    const admin = await webSessionFor(server(), 'ADMIN');
    const headers = { cookie: admin.cookie, origin, 'x-csrf-token': admin.csrfToken };
    const created = await server().app.inject({
      method: 'POST',
      url: '/api/contacts',
      headers,
      payload: contact,
    });
    const deleted = await server().app.inject({
      method: 'DELETE',
      url: `/api/contacts/${created.json().id}`,
      headers,
    });
    expect(deleted.statusCode).toBe(204);
    // The audit walk shows an entry once every older transaction on the server has ended.
    await transactionsSettled(server().database);
    const audit = await server().app.inject({
      method: 'GET',
      url: '/api/audit',
      headers: { cookie: admin.cookie },
    });
    const entry = audit
      .json()
      .entries.find((item: { action: string }) => item.action === 'contact.deleted');
    expect(entry.actor).toEqual({ type: 'user', id: admin.userId });
  });

  it('lets the Authorization header alone decide when present: a bad token is 401 even with a good cookie', async () => {
    const admin = await webSessionFor(server(), 'ADMIN');
    const response = await server().app.inject({
      method: 'GET',
      url: '/api/contacts',
      headers: {
        cookie: admin.cookie,
        authorization: 'Bearer hns_sa_nobody.bm90LWEtcmVhbC1zZWNyZXQtYXQtYWxs',
      },
    });
    expect(response.statusCode).toBe(401);
    const { token } = await server().tokenFor('AGENT');
    // A bearer token needs no CSRF token, even with a cookie beside it.
    const bearer = await server().app.inject({
      method: 'POST',
      url: '/api/contacts',
      headers: { cookie: admin.cookie, authorization: `Bearer ${token}` },
      payload: contact,
    });
    expect(bearer.statusCode).toBe(201);
    const expired = await server().app.inject({
      method: 'GET',
      url: '/api/contacts',
      headers: { cookie: 'followup_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
    });
    expect(expired.statusCode).toBe(401);
    expect(expired.json().code).toBe('token_missing');
  });

  it('is ignored by the inbox and EHR webhooks', async () => {
    const admin = await webSessionFor(server(), 'ADMIN');
    const inbox = await server().app.inject({
      method: 'POST',
      url: '/api/inbox/webhook',
      headers: { cookie: admin.cookie, origin, 'x-csrf-token': admin.csrfToken },
      payload: { from: 'a@example.com', subject: 'hi' },
    });
    expect(inbox.statusCode).toBe(401);
    const ehr = await server().app.inject({
      method: 'POST',
      url: '/api/ehr/webhooks/athenahealth',
      headers: {
        cookie: admin.cookie,
        origin,
        'x-csrf-token': admin.csrfToken,
        'content-type': 'application/json',
      },
      payload: '{}',
    });
    expect(ehr.statusCode).toBe(401);
    const { rows } = await server().database.query('SELECT id FROM messages');
    expect(rows).toEqual([]);
  });

  it("ends a user's sessions at once when their role changes through /api/users or they are disabled", async () => {
    const admin = await webSessionFor(server(), 'ADMIN');
    const target = await webSessionFor(server(), 'AGENT');
    const before = await server().app.inject({
      method: 'GET',
      url: '/api/contacts',
      headers: { cookie: target.cookie },
    });
    expect(before.statusCode).toBe(200);
    const changed = await server().app.inject({
      method: 'PATCH',
      url: `/api/users/${target.userId}`,
      headers: { cookie: admin.cookie, origin, 'x-csrf-token': admin.csrfToken },
      payload: { role: 'MANAGER' },
    });
    expect(changed.statusCode).toBe(200);
    const after = await server().app.inject({
      method: 'GET',
      url: '/api/contacts',
      headers: { cookie: target.cookie },
    });
    expect(after.statusCode).toBe(401);

    const again = await webSessionFor(server(), 'AGENT');
    const { database, clock } = server();
    await disableUser(
      {
        database,
        clock,
        newId: createIdGenerator({ now: () => clock.now() }),
        actor: { type: 'user', id: admin.userId },
      },
      again.userId,
    );
    const disabled = await server().app.inject({
      method: 'GET',
      url: '/',
      headers: { cookie: again.cookie },
    });
    expect(disabled.statusCode).toBe(303);
    const { rows } = await server().database.query<{ action: string; actor_id: string }>(
      `SELECT action, actor_id FROM audit_entries WHERE action IN ('user.role_changed', 'user.disabled') ORDER BY seq`,
    );
    expect(rows).toEqual([
      { action: 'user.role_changed', actor_id: admin.userId },
      { action: 'user.disabled', actor_id: admin.userId },
    ]);
  });
});

describe('behind a proxy trusted with trustProxy', () => {
  const proxied = useTestServer({ trustProxy: true });

  it('sets the Secure __Host- cookie when the proxy says HTTPS, and reads only that one then', async () => {
    const session = await webSessionFor(proxied(), 'ADMIN');
    const signedIn = await proxied().app.inject({
      method: 'POST',
      url: '/signin',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'followup.example.org',
        origin: 'https://followup.example.org',
      },
      payload: new URLSearchParams({ email: session.email, password: session.password }).toString(),
    });
    expect(signedIn.statusCode).toBe(303);
    const cookie = setCookieValue(signedIn.headers, '__Host-followup_session');
    expect(cookie?.attributes).toMatch(/Secure/);
    expect(cookie?.attributes).toMatch(/HttpOnly/);
    expect(cookie?.attributes).toMatch(/Path=\//);
    expect(cookie?.attributes).not.toMatch(/Domain/);
    const home = await proxied().app.inject({
      method: 'GET',
      url: '/',
      headers: { 'x-forwarded-proto': 'https', cookie: `__Host-followup_session=${cookie?.value}` },
    });
    expect(home.statusCode).toBe(200);
    const plain = await proxied().app.inject({
      method: 'GET',
      url: '/',
      headers: { 'x-forwarded-proto': 'https', cookie: `followup_session=${cookie?.value}` },
    });
    expect(plain.statusCode).toBe(303);
  });
});

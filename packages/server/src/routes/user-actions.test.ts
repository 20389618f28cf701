import type { InjectOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/support/server.js';
import { webSessionFor } from '../../test/support/web.js';

const PUBLIC_HOST = 'crm.example.org';
const server = useTestServer({ publicUrl: `https://${PUBLIC_HOST}` });

// Requests name the public URL's host, as a browser or client there does: any other is 421.
function inject(options: InjectOptions) {
  return server().app.inject({
    ...options,
    headers: { host: PUBLIC_HOST, ...(options.headers as Record<string, string>) },
  });
}

async function call(token: string, method: string, url: string, payload?: unknown) {
  return inject({
    method: method as 'POST',
    url,
    headers: { authorization: `Bearer ${token}` },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

describe('user actions on /api/users', () => {
  it('POST /api/users/invitations answers the one-time link once, on the public URL, audited with the caller', async () => {
    const { token, accountId } = await server().tokenFor('ADMIN');
    const invited = await call(token, 'POST', '/api/users/invitations', {
      email: 'grace@example.com',
      role: 'MANAGER',
      name: 'Grace Hopper',
    });
    expect(invited.statusCode).toBe(201);
    const body = invited.json();
    expect(body).toEqual({
      id: expect.stringMatching(/^usr_/),
      email: 'grace@example.com',
      role: 'MANAGER',
      signInUrl: expect.stringMatching(/^https:\/\/crm\.example\.org\/signin\/[A-Za-z0-9_-]{43}$/),
      expiresAt: '2026-03-02T09:00:00.000Z',
    });
    const page = await inject({
      method: 'GET',
      url: new URL(body.signInUrl).pathname,
    });
    expect(page.statusCode).toBe(200);
    const { rows } = await server().database.query<{
      action: string;
      actor_type: string;
      actor_id: string;
    }>(`SELECT action, actor_type, actor_id FROM audit_entries WHERE target_id = $1`, [body.id]);
    expect(rows).toEqual([
      { action: 'user.invited', actor_type: 'service_account', actor_id: accountId },
    ]);
    expect(JSON.stringify(server().logs)).not.toContain(new URL(body.signInUrl).pathname.slice(8));

    const metadata = await server().database.query<{ metadata: Record<string, unknown> }>(
      'SELECT metadata FROM audit_entries WHERE target_id = $1',
      [body.id],
    );
    expect(metadata.rows[0]?.metadata).toEqual({ role: 'MANAGER', expiresAt: body.expiresAt });

    // Inviting again, before a password was chosen: the same user, the new role, the name kept,
    // and only the new link works.
    const again = await call(token, 'POST', '/api/users/invitations', {
      email: 'Grace@Example.com',
      role: 'ADMIN',
    });
    expect(again.statusCode).toBe(201);
    expect(again.json()).toMatchObject({ id: body.id, email: 'grace@example.com', role: 'ADMIN' });
    const oldLink = await inject({
      method: 'GET',
      url: new URL(body.signInUrl).pathname,
    });
    expect(oldLink.statusCode).toBe(410);
    const newLink = await inject({
      method: 'GET',
      url: new URL(again.json().signInUrl).pathname,
    });
    expect(newLink.statusCode).toBe(200);
    const user = await call(token, 'GET', `/api/users/${body.id}`);
    expect(user.json()).toMatchObject({ name: 'Grace Hopper', role: 'ADMIN' });
    const bad = await call(token, 'POST', '/api/users/invitations', {
      email: 'not-an-email',
      role: 'ADMIN',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('validation_failed');
  });

  it('refuses to invite someone who already chose a password (409), and a disabled user cannot sign in', async () => {
    const { token } = await server().tokenFor('ADMIN');
    const person = await webSessionFor(server(), 'AGENT', {
      email: 'active@example.com',
      host: PUBLIC_HOST,
    });
    const conflict = await call(token, 'POST', '/api/users/invitations', {
      email: 'Active@example.com',
      role: 'ADMIN',
    });
    expect(conflict.statusCode).toBe(409);

    const disabled = await call(token, 'POST', `/api/users/${person.userId}/disable`);
    expect(disabled.statusCode).toBe(200);
    expect(disabled.json()).toMatchObject({ id: person.userId, state: 'disabled', sessions: 0 });
    const signIn = await inject({
      method: 'POST',
      url: '/signin',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: `https://${PUBLIC_HOST}`,
      },
      payload: new URLSearchParams({ email: person.email, password: person.password }).toString(),
    });
    expect(signIn.statusCode).toBe(401);
    expect((await call(token, 'POST', '/api/users/usr_missing/disable')).statusCode).toBe(404);
  });

  it('DELETE /api/users/:id/sessions ends every session of the user at once', async () => {
    const admin = await webSessionFor(server(), 'ADMIN', { host: PUBLIC_HOST });
    const person = await webSessionFor(server(), 'AGENT', { host: PUBLIC_HOST });
    const revoked = await inject({
      method: 'DELETE',
      url: `/api/users/${person.userId}/sessions`,
      headers: {
        cookie: admin.cookie,
        origin: `https://${PUBLIC_HOST}`,
        'x-csrf-token': admin.csrfToken,
      },
    });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toEqual({ id: person.userId, sessionsEnded: 1 });
    const after = await inject({
      method: 'GET',
      url: '/api/contacts',
      headers: { cookie: person.cookie },
    });
    expect(after.statusCode).toBe(401);
    const { rows } = await server().database.query<{ actor_type: string; actor_id: string }>(
      `SELECT actor_type, actor_id FROM audit_entries WHERE action = 'user.sessions_revoked'`,
    );
    expect(rows).toEqual([{ actor_type: 'user', actor_id: admin.userId }]);
  });
});

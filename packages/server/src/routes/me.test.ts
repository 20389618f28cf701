import { meSchema } from '@followup/sdk';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/support/server.js';
import { webSessionFor } from '../../test/support/web.js';

describe('GET /api/me', () => {
  const server = useTestServer();

  async function me(token?: string) {
    return server().app.inject({
      method: 'GET',
      url: '/api/me',
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });
  }

  it('tells a token who it is: account, role, capabilities, token id and expiry', async () => {
    const { token, tokenId, accountId } = await server().tokenFor('AGENT', 3_600);
    const response = await me(token);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual({
      type: 'service_account',
      id: accountId,
      name: expect.any(String),
      role: 'AGENT',
      capabilities: ['contacts.read', 'contacts.write', 'deals.read', 'deals.write'],
      token: { id: tokenId, label: null, expiresAt: '2026-03-01T10:00:00.000Z' },
    });
    expect(meSchema.parse(body)).toEqual(body);
    expect(response.body).not.toContain(token.split('.')[1]);
  });

  it('answers every role, READONLY included, with that role’s capabilities', async () => {
    const expected = {
      ADMIN: 10,
      MANAGER: 7,
      READONLY: 2,
    } as const;
    for (const [role, count] of Object.entries(expected)) {
      const { token } = await server().tokenFor(role as keyof typeof expected);
      const body = (await me(token)).json();
      expect(body.role).toBe(role);
      expect(body.capabilities).toHaveLength(count);
      // Webhook endpoints and deliveries are ADMIN's alone.
      expect(body.capabilities.includes('webhooks.manage')).toBe(role === 'ADMIN');
      expect(body.token.expiresAt).toBeNull();
    }
  });

  it('shows the label, and the new expiry of a rolled token', async () => {
    const { accounts, clock } = server();
    const account = await accounts.createAccount({ name: 'deploys', role: 'MANAGER' });
    const issued = await accounts.issueToken({ accountId: account.id, label: 'ci' });
    expect((await me(issued.token)).json().token).toEqual({
      id: issued.id,
      label: 'ci',
      expiresAt: null,
    });
    await accounts.rollToken({ tokenId: issued.id, graceSeconds: 60 });
    expect((await me(issued.token)).json().token.expiresAt).toBe(
      new Date(clock.now() + 60_000).toISOString(),
    );
  });

  it('is 401 without a working token, like every authenticated route', async () => {
    expect((await me()).json()).toMatchObject({ status: 401, code: 'token_missing' });
    const { token, tokenId } = await server().tokenFor('ADMIN');
    await server().accounts.revokeToken({ tokenId });
    expect((await me(token)).json()).toMatchObject({ status: 401, code: 'token_revoked' });
  });

  it('tells a browser session who is signed in, with no token', async () => {
    const session = await webSessionFor(server(), 'MANAGER', {
      name: 'Grace',
      email: 'grace@example.com',
    });
    const response = await server().app.inject({
      method: 'GET',
      url: '/api/me',
      headers: { cookie: session.cookie },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      type: 'user',
      id: session.userId,
      name: 'Grace',
      email: 'grace@example.com',
      role: 'MANAGER',
      capabilities: [
        'contacts.read',
        'contacts.write',
        'deals.read',
        'deals.write',
        'sequences.manage',
        'campaigns.manage',
        'audit.read',
      ],
      token: null,
    });
    expect(meSchema.parse(response.json()).type).toBe('user');
  });

  it('is in the OpenAPI document', async () => {
    const document = (await server().app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(document.paths['/api/me'].get.responses['200']).toBeDefined();
  });
});

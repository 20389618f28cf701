import { createHash } from 'node:crypto';
import { portalLinkSchema } from '@followup/sdk';
import { describe, expect, it } from 'vitest';
import { cookieBrowser } from '../../test/support/cookie-browser.js';
import { portalLinkPath } from '../../test/support/portal.js';
import { useTestServer } from '../../test/support/server.js';
import type { Role } from '../tokens/role.js';

describe('POST /api/webhook-portal/links', () => {
  const server = useTestServer();

  async function createLink(payload: unknown, role: Role = 'ADMIN') {
    const { token } = await server().tokenFor(role);
    return server().app.inject({
      method: 'POST',
      url: '/api/webhook-portal/links',
      headers: { authorization: `Bearer ${token}` },
      payload: payload as Record<string, unknown>,
    });
  }

  it('answers 201 with a one-time link into the portal, expiring in 60 minutes by default', async () => {
    const response = await createLink({ subscriber: 'acme' });
    expect(response.statusCode).toBe(201);
    const link = portalLinkSchema.parse(response.json());
    expect(link.url).toMatch(/^http:\/\/localhost:80\/portal\/link\/[A-Za-z0-9_-]{43}$/);
    expect(link.expiresAt).toBe(new Date(server().clock.now() + 60 * 60_000).toISOString());

    const longest = await createLink({ subscriber: 'acme', expiresInMinutes: 1_440 });
    expect(longest.json().expiresAt).toBe(
      new Date(server().clock.now() + 1_440 * 60_000).toISOString(),
    );
  });

  it('stores only the SHA-256 of the link: the token is nowhere in the database', async () => {
    const { url } = (await createLink({ subscriber: 'acme' })).json();
    const token = url.split('/').at(-1) as string;
    const { rows } = await server().database.query<Record<string, unknown>>(
      'SELECT * FROM portal_links',
    );
    expect(rows).toHaveLength(1);
    expect(Buffer.from(rows[0]?.token_sha256 as Buffer)).toEqual(
      createHash('sha256').update(token).digest(),
    );
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('refuses a bad subscriber or expiry with 400 validation_failed naming the field', async () => {
    for (const [payload, field] of [
      [{}, 'subscriber'],
      [{ subscriber: 'Acme Corp' }, 'subscriber'],
      [{ subscriber: 'a'.repeat(65) }, 'subscriber'],
      [{ subscriber: 'acme', expiresInMinutes: 0 }, 'expiresInMinutes'],
      [{ subscriber: 'acme', expiresInMinutes: 1_441 }, 'expiresInMinutes'],
      [{ subscriber: 'acme', expiresInMinutes: 1.5 }, 'expiresInMinutes'],
      [{ subscriber: 'acme', expiresIn: 30 }, ''],
    ] as const) {
      const response = await createLink(payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.json().code).toBe('validation_failed');
      if (field !== '') {
        expect(response.json().errors.map((error: { path: string }) => error.path)).toContain(
          field,
        );
      }
    }
    expect((await server().database.query('SELECT 1 FROM portal_links')).rows).toEqual([]);
  });

  it('needs webhooks.manage: a MANAGER token is 403, no token 401', async () => {
    expect((await createLink({ subscriber: 'acme' }, 'MANAGER')).statusCode).toBe(403);
    const anonymous = await server().app.inject({
      method: 'POST',
      url: '/api/webhook-portal/links',
      payload: { subscriber: 'acme' },
    });
    expect(anonymous.statusCode).toBe(401);
  });

  it('is audited as portal_link.created by the caller, without the token', async () => {
    const { token } = await server().tokenFor('ADMIN');
    const created = await server().app.inject({
      method: 'POST',
      url: '/api/webhook-portal/links',
      headers: { authorization: `Bearer ${token}` },
      payload: { subscriber: 'acme', expiresInMinutes: 5 },
    });
    const { rows } = await server().database.query<Record<string, unknown>>(
      `SELECT action, actor_type, actor_id, target_type, target_id, metadata
         FROM audit_entries WHERE action = 'portal_link.created'`,
    );
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row).toMatchObject({
      actor_type: 'service_account',
      target_type: 'subscriber',
      target_id: 'acme',
    });
    const entry = row;
    expect(JSON.stringify(entry)).not.toContain(created.json().url.split('/').at(-1));
  });

  it('works once: its confirmation page does not use it, its POST does, and a second POST is 410', async () => {
    const { url } = (await createLink({ subscriber: 'acme' })).json();
    const browser = cookieBrowser(server());
    const confirm = await browser.get(portalLinkPath(url));
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('acme');
    expect((await browser.get(portalLinkPath(url))).statusCode).toBe(200);

    const started = await browser.post(portalLinkPath(url));
    expect(started.statusCode).toBe(303);
    expect(started.headers.location).toBe('/portal/endpoints');
    expect(browser.cookies.has('followup_portal')).toBe(true);

    const again = cookieBrowser(server());
    expect((await again.post(portalLinkPath(url))).statusCode).toBe(410);
    expect((await again.get(portalLinkPath(url))).statusCode).toBe(410);
    expect(again.cookies.has('followup_portal')).toBe(false);
  });

  it('stops working unused when it expires, by the clock', async () => {
    const { url } = (await createLink({ subscriber: 'acme', expiresInMinutes: 1 })).json();
    server().clock.advance(60_000);
    const browser = cookieBrowser(server());
    expect((await browser.get(portalLinkPath(url))).statusCode).toBe(410);
    expect((await browser.post(portalLinkPath(url))).statusCode).toBe(410);
  });

  it('is in the OpenAPI document with its operationId', async () => {
    const document = (await server().app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(document.paths['/api/webhook-portal/links'].post.operationId).toBe(
      'createWebhookPortalLink',
    );
    expect(Object.keys(document.paths).some((path) => path.startsWith('/portal'))).toBe(false);
  });
});

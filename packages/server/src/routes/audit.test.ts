import { describe, expect, it } from 'vitest';
import { transactionsSettled } from '../../test/support/database.js';
import { useTestServer } from '../../test/support/server.js';
import { roles } from '../tokens/role.js';

describe('GET /api/audit', () => {
  const server = useTestServer();

  // Waits first for every transaction older than the last entry (see transactionsSettled).
  async function get(token: string, query = '') {
    await transactionsSettled(server().database);
    return server().app.inject({
      method: 'GET',
      url: `/api/audit${query}`,
      headers: { authorization: `Bearer ${token}` },
    });
  }

  it.each(roles.map((role) => [role, role === 'ADMIN' || role === 'MANAGER' ? 200 : 403] as const))(
    'answers %s with %i (audit.read)',
    async (role, status) => {
      const { token } = await server().tokenFor(role);
      const response = await get(token);
      expect(response.statusCode).toBe(status);
      if (status === 403) {
        expect(response.json()).toMatchObject({
          status: 403,
          code: 'forbidden',
          title: 'Forbidden',
          requestId: response.headers['x-request-id'],
        });
      }
    },
  );

  it('returns the entries with a null nextCursor on the last page', async () => {
    const { token, tokenId, accountId } = await server().tokenFor('MANAGER');
    const response = await get(token);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = response.json();
    expect(Object.keys(body)).toEqual(['entries', 'nextCursor']);
    expect(body).toEqual({
      entries: [
        {
          id: expect.stringMatching(/^aud_/),
          occurredAt: '2026-03-01T09:00:00.000Z',
          action: 'service_account.created',
          actor: { type: 'operator' },
          target: { type: 'service_account', id: accountId },
          metadata: { name: 'test-MANAGER', role: 'MANAGER' },
        },
        {
          id: expect.stringMatching(/^aud_/),
          occurredAt: '2026-03-01T09:00:00.000Z',
          action: 'token.issued',
          actor: { type: 'operator' },
          target: { type: 'token', id: tokenId },
          metadata: { accountId, expiresAt: null },
        },
      ],
      nextCursor: null,
    });
  });

  it('walks every entry exactly once through nextCursor, while entries are written', async () => {
    const { token } = await server().tokenFor('ADMIN');
    for (let index = 0; index < 3; index++) await server().tokenFor('AGENT');
    const seen: string[] = [];
    let url = '?limit=3';
    let pages = 0;
    for (;;) {
      const response = await get(token, url);
      expect(response.statusCode).toBe(200);
      const body = response.json() as { entries: { id: string }[]; nextCursor: string | null };
      seen.push(...body.entries.map((entry) => entry.id));
      pages++;
      if (pages === 1) await server().tokenFor('READONLY'); // two more entries mid-walk
      if (body.nextCursor === null) break;
      url = `?limit=3&cursor=${encodeURIComponent(body.nextCursor)}`;
    }
    const { rows } = await server().database.query<{ id: string }>(
      'SELECT id FROM audit_entries ORDER BY seq',
    );
    expect(rows).toHaveLength(10);
    expect(seen).toEqual(rows.map((row) => row.id));
    expect(pages).toBe(4);
  });

  it.each([
    ['0', 'limit'],
    ['201', 'limit'],
    ['-1', 'limit'],
    ['1.5', 'limit'],
    ['ten', 'limit'],
  ])('refuses limit=%s with 400 validation_failed', async (limit, path) => {
    const { token } = await server().tokenFor('ADMIN');
    const response = await get(token, `?limit=${limit}`);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.json()).toMatchObject({
      status: 400,
      code: 'validation_failed',
      errors: [{ path, message: expect.any(String) }],
    });
  });

  it('accepts limit=200 and limit=1', async () => {
    const { token } = await server().tokenFor('ADMIN');
    expect((await get(token, '?limit=200')).statusCode).toBe(200);
    const one = await get(token, '?limit=1');
    expect(one.json().entries).toHaveLength(1);
    expect(one.json().nextCursor).toEqual(expect.any(String));
  });

  it('refuses a cursor it did not make with 400 validation_failed on cursor', async () => {
    const { token } = await server().tokenFor('ADMIN');
    const response = await get(token, '?cursor=bogus');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'validation_failed',
      errors: [{ path: 'cursor', message: expect.any(String) }],
    });
  });

  it('authenticates before it validates: no token and a bad limit is 401', async () => {
    const response = await server().app.inject({ method: 'GET', url: '/api/audit?limit=0' });
    expect(response.statusCode).toBe(401);
  });
});

import { userListSchema, userSchema } from '@followup/sdk';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/support/server.js';
import { hasCapability } from '../capabilities.js';
import { roles } from '../tokens/role.js';

const server = useTestServer();

async function call(token: string, method: string, url: string, payload?: unknown) {
  return server().app.inject({
    method: method as 'GET',
    url,
    headers: { authorization: `Bearer ${token}` },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

const grace = { email: 'grace@example.com', name: 'Grace Hopper', role: 'MANAGER' };

describe('users', () => {
  it('creates, reads, lists, updates and deletes a user, auditing each change without values', async () => {
    const { token, accountId } = await server().tokenFor('ADMIN');
    const created = await call(token, 'POST', '/api/users', grace);
    expect(created.statusCode).toBe(201);
    const user = created.json();
    expect(user).toEqual({
      id: expect.stringMatching(/^usr_[0-9A-Z]{26}$/),
      ...grace,
      createdAt: '2026-03-01T09:00:00.000Z',
    });
    expect(userSchema.parse(user)).toEqual(user);

    const updated = await call(token, 'PATCH', `/api/users/${user.id}`, { role: 'ADMIN' });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toEqual({ ...user, role: 'ADMIN' });
    const list = (await call(token, 'GET', '/api/users')).json();
    expect(Object.keys(list)).toEqual(['users']);
    expect(userListSchema.parse(list)).toEqual({ users: [{ ...user, role: 'ADMIN' }] });

    expect((await call(token, 'DELETE', `/api/users/${user.id}`)).statusCode).toBe(204);
    expect((await call(token, 'GET', `/api/users/${user.id}`)).statusCode).toBe(404);

    const { rows } = await server().database.query(
      `SELECT action, actor_type, actor_id, target_id, metadata FROM audit_entries
        WHERE target_type = 'user' ORDER BY seq`,
    );
    const actor = { actor_type: 'service_account', actor_id: accountId, target_id: user.id };
    expect(rows).toEqual([
      { action: 'user.created', ...actor, metadata: { fields: ['email', 'name', 'role'] } },
      { action: 'user.updated', ...actor, metadata: { fields: ['role'] } },
      { action: 'user.role_changed', ...actor, metadata: { to: 'ADMIN', sessionsEnded: 0 } },
      { action: 'user.deleted', ...actor, metadata: {} },
    ]);
    expect(JSON.stringify(rows)).not.toContain('grace@example.com');
  });

  it('answers 409 conflict for an e-mail address another user has, on create and on update', async () => {
    const { token } = await server().tokenFor('ADMIN');
    await call(token, 'POST', '/api/users', grace);
    const duplicate = await call(token, 'POST', '/api/users', { ...grace, name: 'Other' });
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json()).toMatchObject({
      code: 'conflict',
      errors: [{ path: 'email', message: 'Another user has this e-mail address.' }],
    });
    const other = (
      await call(token, 'POST', '/api/users', { ...grace, email: 'other@example.com' })
    ).json();
    const moved = await call(token, 'PATCH', `/api/users/${other.id}`, { email: grace.email });
    expect(moved.statusCode).toBe(409);
    expect(moved.json().code).toBe('conflict');
    const { rows } = await server().database.query(
      `SELECT action FROM audit_entries WHERE target_type = 'user' ORDER BY seq`,
    );
    expect(rows).toEqual([{ action: 'user.created' }, { action: 'user.created' }]);
  });

  it('answers 409 conflict for an address another user has in another case, on create and on update', async () => {
    const { token } = await server().tokenFor('ADMIN');
    const demo = (
      await call(token, 'POST', '/api/users', { ...grace, email: 'demo@example.com' })
    ).json();
    for (const email of ['DEMO@example.com', 'Demo@Example.COM']) {
      const variant = await call(token, 'POST', '/api/users', { ...grace, email });
      expect(variant.statusCode, email).toBe(409);
      expect(variant.json()).toMatchObject({
        code: 'conflict',
        errors: [{ path: 'email', message: 'Another user has this e-mail address.' }],
      });
    }
    const other = (await call(token, 'POST', '/api/users', grace)).json();
    const moved = await call(token, 'PATCH', `/api/users/${other.id}`, {
      email: 'DEMO@EXAMPLE.COM',
    });
    expect(moved.statusCode).toBe(409);
    expect(moved.json().code).toBe('conflict');
    // A user may change the case of their own address.
    const recased = await call(token, 'PATCH', `/api/users/${demo.id}`, {
      email: 'Demo@example.com',
    });
    expect(recased.statusCode).toBe(200);
    const { rows } = await server().database.query<{ id: string; email: string }>(
      'SELECT id, email FROM users ORDER BY created_at, id',
    );
    expect(rows).toEqual([
      { id: demo.id, email: 'Demo@example.com' },
      { id: other.id, email: grace.email },
    ]);
  });

  it.each([
    ['without a role', { email: 'a@example.com', name: 'A' }, ['role']],
    ['with a bad e-mail', { ...grace, email: 'grace' }, ['email']],
    ['without a name', { email: 'a@example.com', role: 'AGENT' }, ['name']],
  ])('answers 400 validation_failed %s', async (_name, payload, paths) => {
    const { token } = await server().tokenFor('ADMIN');
    const response = await call(token, 'POST', '/api/users', payload);
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body.code).toBe('validation_failed');
    expect(body.errors.map((error: { path: string }) => error.path)).toEqual(paths);
  });

  it.each(roles)('%s needs users.manage for every user route', async (role) => {
    const { token } = await server().tokenFor(role);
    const { token: admin } = await server().tokenFor('ADMIN');
    const existing = (await call(admin, 'POST', '/api/users', grace)).json();
    const allowed = hasCapability(role, 'users.manage');
    const statuses = [
      (await call(token, 'GET', '/api/users')).statusCode,
      (await call(token, 'GET', `/api/users/${existing.id}`)).statusCode,
      (await call(token, 'POST', '/api/users', { ...grace, email: 'n@example.com' })).statusCode,
      (await call(token, 'PATCH', `/api/users/${existing.id}`, { name: 'G' })).statusCode,
      (await call(token, 'DELETE', `/api/users/${existing.id}`)).statusCode,
    ];
    expect(statuses).toEqual(allowed ? [200, 200, 201, 200, 204] : [403, 403, 403, 403, 403]);
  });
});

import { sequenceListSchema, sequenceSchema } from '@followup/sdk';
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

const steps = [
  { action: 'EMAIL', delayHours: 0, template: 'welcome' },
  { action: 'CALL', delayHours: 48 },
];

describe('sequences', () => {
  it('creates with DRAFT and no steps by default, then reads, lists, updates and deletes', async () => {
    const { token } = await server().tokenFor('MANAGER');
    const created = await call(token, 'POST', '/api/sequences', { name: 'Onboarding' });
    expect(created.statusCode).toBe(201);
    const sequence = created.json();
    expect(sequence).toEqual({
      id: expect.stringMatching(/^seq_[0-9A-Z]{26}$/),
      name: 'Onboarding',
      status: 'DRAFT',
      steps: [],
      createdAt: '2026-03-01T09:00:00.000Z',
      updatedAt: '2026-03-01T09:00:00.000Z',
    });
    expect(sequenceSchema.parse(sequence)).toEqual(sequence);

    server().clock.advance(1000);
    const updated = await call(token, 'PATCH', `/api/sequences/${sequence.id}`, {
      status: 'ACTIVE',
      steps,
    });
    expect(updated.statusCode).toBe(200);
    const expected = {
      ...sequence,
      status: 'ACTIVE',
      steps,
      updatedAt: '2026-03-01T09:00:01.000Z',
    };
    expect(updated.json()).toEqual(expected);
    expect((await call(token, 'GET', `/api/sequences/${sequence.id}`)).json()).toEqual(expected);
    const list = (await call(token, 'GET', '/api/sequences?limit=1')).json();
    expect(Object.keys(list)).toEqual(['sequences']);
    expect(sequenceListSchema.parse(list)).toEqual({ sequences: [expected] });

    expect((await call(token, 'DELETE', `/api/sequences/${sequence.id}`)).statusCode).toBe(204);
    expect((await call(token, 'GET', `/api/sequences/${sequence.id}`)).statusCode).toBe(404);
    const { rows } = await server().database.query(
      `SELECT action, target_id FROM audit_entries WHERE target_type = 'sequence'`,
    );
    expect(rows).toEqual([{ action: 'sequence.deleted', target_id: sequence.id }]);
  });

  it.each([
    ['without a name', {}, ['name']],
    [
      'with a step without delayHours',
      { name: 'S', steps: [{ action: 'EMAIL' }] },
      ['steps.0.delayHours'],
    ],
    ['with steps that are not a list', { name: 'S', steps: 'EMAIL' }, ['steps']],
  ])('answers 400 validation_failed %s', async (_name, payload, paths) => {
    const { token } = await server().tokenFor('ADMIN');
    const response = await call(token, 'POST', '/api/sequences', payload);
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body.code).toBe('validation_failed');
    expect(body.errors.map((error: { path: string }) => error.path)).toEqual(paths);
  });

  it.each(roles)('%s needs sequences.manage for every sequence route', async (role) => {
    const { token } = await server().tokenFor(role);
    const { token: admin } = await server().tokenFor('ADMIN');
    const existing = (await call(admin, 'POST', '/api/sequences', { name: 'S' })).json();
    const allowed = hasCapability(role, 'sequences.manage');
    const statuses = [
      (await call(token, 'GET', '/api/sequences')).statusCode,
      (await call(token, 'GET', `/api/sequences/${existing.id}`)).statusCode,
      (await call(token, 'POST', '/api/sequences', { name: 'T' })).statusCode,
      (await call(token, 'PATCH', `/api/sequences/${existing.id}`, { name: 'U' })).statusCode,
      (await call(token, 'DELETE', `/api/sequences/${existing.id}`)).statusCode,
    ];
    expect(statuses).toEqual(allowed ? [200, 200, 201, 200, 204] : [403, 403, 403, 403, 403]);
  });
});

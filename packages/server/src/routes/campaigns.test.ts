import { campaignListSchema, campaignSchema } from '@followup/sdk';
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

describe('campaigns', () => {
  it('creates with DRAFT by default, then reads, lists, updates and deletes', async () => {
    const { token } = await server().tokenFor('MANAGER');
    const created = await call(token, 'POST', '/api/campaigns', { name: 'Spring check-ups' });
    expect(created.statusCode).toBe(201);
    const campaign = created.json();
    expect(campaign).toEqual({
      id: expect.stringMatching(/^cmp_[0-9A-Z]{26}$/),
      name: 'Spring check-ups',
      status: 'DRAFT',
      createdAt: '2026-03-01T09:00:00.000Z',
      updatedAt: '2026-03-01T09:00:00.000Z',
    });
    expect(campaignSchema.parse(campaign)).toEqual(campaign);

    server().clock.advance(1000);
    const updated = await call(token, 'PATCH', `/api/campaigns/${campaign.id}`, {
      status: 'SCHEDULED',
    });
    const expected = { ...campaign, status: 'SCHEDULED', updatedAt: '2026-03-01T09:00:01.000Z' };
    expect(updated.json()).toEqual(expected);
    const list = (await call(token, 'GET', '/api/campaigns')).json();
    expect(Object.keys(list)).toEqual(['campaigns']);
    expect(campaignListSchema.parse(list)).toEqual({ campaigns: [expected] });

    expect((await call(token, 'DELETE', `/api/campaigns/${campaign.id}`)).statusCode).toBe(204);
    expect((await call(token, 'DELETE', `/api/campaigns/${campaign.id}`)).statusCode).toBe(404);
    const { rows } = await server().database.query(
      `SELECT action, target_id FROM audit_entries WHERE target_type = 'campaign'`,
    );
    expect(rows).toEqual([{ action: 'campaign.deleted', target_id: campaign.id }]);
  });

  it('answers 400 validation_failed for an empty name or an unknown field', async () => {
    const { token } = await server().tokenFor('ADMIN');
    for (const payload of [{ name: '' }, { name: 'C', budget: 5 }]) {
      const response = await call(token, 'POST', '/api/campaigns', payload);
      expect(response.statusCode).toBe(400);
      expect(response.json().code).toBe('validation_failed');
    }
  });

  it.each(roles)('%s needs campaigns.manage for every campaign route', async (role) => {
    const { token } = await server().tokenFor(role);
    const { token: admin } = await server().tokenFor('ADMIN');
    const existing = (await call(admin, 'POST', '/api/campaigns', { name: 'C' })).json();
    const allowed = hasCapability(role, 'campaigns.manage');
    const statuses = [
      (await call(token, 'GET', '/api/campaigns')).statusCode,
      (await call(token, 'GET', `/api/campaigns/${existing.id}`)).statusCode,
      (await call(token, 'POST', '/api/campaigns', { name: 'D' })).statusCode,
      (await call(token, 'PATCH', `/api/campaigns/${existing.id}`, { name: 'E' })).statusCode,
      (await call(token, 'DELETE', `/api/campaigns/${existing.id}`)).statusCode,
    ];
    expect(statuses).toEqual(allowed ? [200, 200, 201, 200, 204] : [403, 403, 403, 403, 403]);
  });
});

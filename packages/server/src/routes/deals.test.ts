import { dealListSchema, dealSchema } from '@followup/sdk';
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

async function newContact(token: string): Promise<string> {
  const response = await call(token, 'POST', '/api/contacts', {
    firstName: 'Ada',
    lastName: 'Lovelace',
  });
  return response.json().id;
}

const checkUp = { title: 'Annual check-up', amountCents: 12_500, currency: 'EUR' };

describe('deals', () => {
  it('creates, reads, lists, updates and deletes a deal', async () => {
    const { token, accountId } = await server().tokenFor('AGENT');
    const contactId = await newContact(token);
    const created = await call(token, 'POST', '/api/deals', { ...checkUp, contactId });
    expect(created.statusCode).toBe(201);
    const deal = created.json();
    expect(deal).toEqual({
      id: expect.stringMatching(/^deal_[0-9A-Z]{26}$/),
      contactId,
      title: 'Annual check-up',
      stage: 'OPEN',
      amountCents: 12_500,
      currency: 'EUR',
      createdAt: '2026-03-01T09:00:00.000Z',
      updatedAt: '2026-03-01T09:00:00.000Z',
    });
    expect(dealSchema.parse(deal)).toEqual(deal);
    expect((await call(token, 'GET', `/api/deals/${deal.id}`)).json()).toEqual(deal);
    // Its deal.created event carries what the answer says.
    const database = server().database;
    const { rows: events } = await database.query(
      `SELECT data FROM outbox_events WHERE event = 'deal.created'`,
    );
    expect(events).toEqual([{ data: deal }]);

    const list = await call(token, 'GET', '/api/deals');
    expect(list.headers.link).toBeUndefined();
    expect(Object.keys(list.json())).toEqual(['deals', 'nextCursor']);
    expect(dealListSchema.parse(list.json())).toEqual({ deals: [deal], nextCursor: null });

    server().clock.advance(1000);
    const updated = await call(token, 'PATCH', `/api/deals/${deal.id}`, {
      stage: 'WON',
      amountCents: 9_007_199_254_740_991,
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toEqual({
      ...deal,
      stage: 'WON',
      amountCents: 9_007_199_254_740_991,
      updatedAt: '2026-03-01T09:00:01.000Z',
    });

    expect((await call(token, 'GET', '/api/deals/count')).json()).toEqual({ count: 1 });
    const deleted = await call(token, 'DELETE', `/api/deals/${deal.id}`);
    expect(deleted.statusCode).toBe(204);
    expect((await call(token, 'GET', `/api/deals/${deal.id}`)).statusCode).toBe(404);
    expect((await call(token, 'GET', '/api/deals/count')).json()).toEqual({ count: 0 });
    const { rows } = await server().database.query(
      `SELECT action, actor_id, target_type, target_id FROM audit_entries
        WHERE action LIKE 'deal.%'`,
    );
    expect(rows).toEqual([
      { action: 'deal.deleted', actor_id: accountId, target_type: 'deal', target_id: deal.id },
    ]);
  });

  it('answers 400 validation_failed on contactId when no contact has that id', async () => {
    const { token } = await server().tokenFor('AGENT');
    const response = await call(token, 'POST', '/api/deals', {
      ...checkUp,
      contactId: 'con_01NOSUCHCONTACT',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'validation_failed',
      errors: [{ path: 'contactId', message: 'no contact has this id' }],
    });
    expect((await server().database.query('SELECT id FROM deals')).rows).toEqual([]);
  });

  it.each([
    ['without a title', { amountCents: 1, currency: 'USD' }, ['title']],
    ['with a negative amount', { ...checkUp, amountCents: -1 }, ['amountCents']],
    ['with a fractional amount', { ...checkUp, amountCents: 1.5 }, ['amountCents']],
    ['with a lower-case currency', { ...checkUp, currency: 'eur' }, ['currency']],
  ])('answers 400 validation_failed %s', async (_name, payload, paths) => {
    const { token } = await server().tokenFor('AGENT');
    const contactId = await newContact(token);
    const response = await call(token, 'POST', '/api/deals', { contactId, ...payload });
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body.code).toBe('validation_failed');
    expect(body.errors.map((error: { path: string }) => error.path)).toEqual(paths);
  });

  it('refuses to move a deal to another contact (contactId is not an update field)', async () => {
    const { token } = await server().tokenFor('AGENT');
    const contactId = await newContact(token);
    const deal = (await call(token, 'POST', '/api/deals', { ...checkUp, contactId })).json();
    const response = await call(token, 'PATCH', `/api/deals/${deal.id}`, { contactId: 'con_x' });
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('validation_failed');
  });

  it('answers 404 not_found for an unknown id', async () => {
    const { token } = await server().tokenFor('AGENT');
    for (const method of ['GET', 'DELETE']) {
      const response = await call(token, method, '/api/deals/deal_unknown');
      expect(response.statusCode).toBe(404);
      expect(response.json().code).toBe('not_found');
    }
    const patch = await call(token, 'PATCH', '/api/deals/deal_unknown', { stage: 'LOST' });
    expect(patch.statusCode).toBe(404);
  });

  it.each(roles)('%s reads deals, and writes them only with deals.write', async (role) => {
    const { token } = await server().tokenFor(role);
    const { token: admin } = await server().tokenFor('ADMIN');
    const contactId = await newContact(admin);
    const deal = (await call(admin, 'POST', '/api/deals', { ...checkUp, contactId })).json();
    const write = hasCapability(role, 'deals.write');
    expect((await call(token, 'GET', '/api/deals')).statusCode).toBe(200);
    expect((await call(token, 'GET', '/api/deals/count')).statusCode).toBe(200);
    expect((await call(token, 'GET', `/api/deals/${deal.id}`)).statusCode).toBe(200);
    expect((await call(token, 'POST', '/api/deals', { ...checkUp, contactId })).statusCode).toBe(
      write ? 201 : 403,
    );
    expect(
      (await call(token, 'PATCH', `/api/deals/${deal.id}`, { stage: 'LOST' })).statusCode,
    ).toBe(write ? 200 : 403);
    expect((await call(token, 'DELETE', `/api/deals/${deal.id}`)).statusCode).toBe(
      write ? 204 : 403,
    );
  });
});

import { contactCreatedEventSchema, contactListSchema, contactSchema } from '@followup/sdk';
import { describe, expect, it } from 'vitest';
import { transactionsSettled } from '../../test/support/database.js';
import { useTestServer } from '../../test/support/server.js';
import { hasCapability } from '../capabilities.js';
import { createEndpointStore } from '../delivery/webhook-endpoints.js';
import { roles } from '../tokens/role.js';

const server = useTestServer();

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

async function call(
  token: string,
  method: Method,
  url: string,
  payload?: unknown,
  headers: Record<string, string> = {},
) {
  return server().app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}`, ...headers },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

async function rows(sql: string) {
  return (await server().database.query(sql)).rows;
}

const ada = { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' };

describe('POST /api/contacts', () => {
  it('creates the contact: 201, the SDK schema, LEAD by default, timestamps from the clock', async () => {
    const { token } = await server().tokenFor('AGENT');
    const response = await call(token, 'POST', '/api/contacts', ada);
    expect(response.statusCode).toBe(201);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const contact = response.json();
    expect(contact).toEqual({
      id: expect.stringMatching(/^con_[0-9A-Z]{26}$/),
      firstName: 'Ada',
      lastName: 'Lovelace',
      lifecycle: 'LEAD',
      email: 'ada@example.com',
      createdAt: '2026-03-01T09:00:00.000Z',
      updatedAt: '2026-03-01T09:00:00.000Z',
    });
    expect(contactSchema.parse(contact)).toEqual(contact);
    const got = await call(token, 'GET', `/api/contacts/${contact.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(contact);
  });

  it('writes a contact.created event into the outbox in the same transaction', async () => {
    const { token } = await server().tokenFor('MANAGER');
    const contact = (
      await call(token, 'POST', '/api/contacts', { ...ada, lifecycle: 'PATIENT', phone: '+44 1' })
    ).json();
    const events = await rows(
      'SELECT id, event, data, created_at, dispatched_at FROM outbox_events',
    );
    expect(events).toEqual([
      {
        id: expect.stringMatching(/^evt_/),
        event: 'contact.created',
        data: contact,
        created_at: '2026-03-01T09:00:00.000Z',
        // No endpoint takes it: written dispatched (see the test of waking the workers below).
        dispatched_at: '2026-03-01T09:00:00.000Z',
      },
    ]);
    const event = events[0] as { id: string; event: string; data: unknown; created_at: string };
    // The body delivery will send is what the SDK's webhook schema reads.
    const body = {
      id: event.id,
      event: event.event,
      createdAt: event.created_at,
      data: event.data,
    };
    expect(contactCreatedEventSchema.parse(body).data).toMatchObject({
      id: contact.id,
      firstName: 'Ada',
      lastName: 'Lovelace',
    });
  });

  it('audits the create as contact.created, with the names of the fields sent, never their values', async () => {
    const { token, accountId } = await server().tokenFor('AGENT');
    const contact = (await call(token, 'POST', '/api/contacts', { ...ada, phone: '+44 1' })).json();
    const { token: admin } = await server().tokenFor('ADMIN');
    await transactionsSettled(server().database);
    const audit = await call(admin, 'GET', '/api/audit?limit=200');
    const entries = audit
      .json()
      .entries.filter((entry: { action: string }) => entry.action === 'contact.created');
    expect(entries).toEqual([
      {
        id: expect.stringMatching(/^aud_/),
        occurredAt: '2026-03-01T09:00:00.000Z',
        action: 'contact.created',
        actor: { type: 'service_account', id: accountId },
        target: { type: 'contact', id: contact.id },
        metadata: { fields: ['firstName', 'lastName', 'email', 'phone'] },
      },
    ]);
    expect(JSON.stringify(entries)).not.toContain('Lovelace');
  });

  it('writes the contact, its audit entry and its event in one transaction, the event equal to the answer', async () => {
    const { token } = await server().tokenFor('AGENT');
    // A time with a fraction of a second, besides the whole second of the other tests.
    server().clock.advance(1_234);
    const response = await call(token, 'POST', '/api/contacts', { ...ada, phone: '+44 1' });
    expect(response.statusCode).toBe(201);
    const contact = response.json();
    expect(contact.createdAt).toBe('2026-03-01T09:00:01.234Z');
    const [row] = await rows(`SELECT change_xid::text AS xid FROM contacts`);
    const entries = await rows(
      `SELECT xid::text AS xid FROM audit_entries WHERE action = 'contact.created'`,
    );
    expect(entries).toEqual([{ xid: row?.xid }]);
    expect(row?.xid).toMatch(/^\d+$/);
    expect(await rows('SELECT event, data FROM outbox_events')).toEqual([
      { event: 'contact.created', data: contact },
    ]);
  });

  it('leaves neither the contact nor the event when the transaction fails, and releases the key', async () => {
    const { token } = await server().tokenFor('AGENT');
    const database = server().database;
    await database.query(`
      CREATE FUNCTION test_refuse_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'outbox refused'; END $$;
      CREATE TRIGGER test_refuse_event BEFORE INSERT ON outbox_events
        FOR EACH ROW EXECUTE FUNCTION test_refuse_event();
    `);
    let failed: Awaited<ReturnType<typeof call>>;
    try {
      failed = await call(token, 'POST', '/api/contacts', ada, { 'idempotency-key': 'k-fail' });
    } finally {
      await database.query(`
        DROP TRIGGER test_refuse_event ON outbox_events;
        DROP FUNCTION test_refuse_event();
      `);
    }
    expect(failed.statusCode).toBe(500);
    expect(failed.json()).toMatchObject({ code: 'internal_error' });
    expect(failed.body).not.toContain('outbox refused');
    expect(await rows('SELECT id FROM contacts')).toEqual([]);
    expect(await rows('SELECT id FROM outbox_events')).toEqual([]);
    expect(await rows(`SELECT id FROM audit_entries WHERE action = 'contact.created'`)).toEqual([]);
    const retried = await call(token, 'POST', '/api/contacts', ada, {
      'idempotency-key': 'k-fail',
    });
    expect(retried.statusCode).toBe(201);
    expect(await rows('SELECT id FROM contacts')).toEqual([{ id: retried.json().id }]);
    expect(await rows('SELECT data FROM outbox_events')).toEqual([{ data: retried.json() }]);
  });

  it('honours Idempotency-Key: the same request answers the first response and creates nothing', async () => {
    const { token } = await server().tokenFor('AGENT');
    const headers = { 'idempotency-key': 'create-ada-1' };
    const first = await call(token, 'POST', '/api/contacts', ada, headers);
    server().clock.advance(5000);
    const second = await call(token, 'POST', '/api/contacts', ada, headers);
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toBe(first.body);
    expect(await rows('SELECT id FROM contacts')).toHaveLength(1);
    expect(await rows('SELECT id FROM outbox_events')).toHaveLength(1);
    const other = await call(token, 'POST', '/api/contacts', { ...ada, firstName: 'B' }, headers);
    expect(other.statusCode).toBe(409);
    expect(other.json()).toMatchObject({ code: 'idempotency_conflict' });
  });

  it('accepts a lifecycle it does not know (an open enumeration)', async () => {
    const { token } = await server().tokenFor('AGENT');
    const response = await call(token, 'POST', '/api/contacts', { ...ada, lifecycle: 'ALUMNI' });
    expect(response.statusCode).toBe(201);
    expect(response.json().lifecycle).toBe('ALUMNI');
  });

  it.each([
    ['without firstName', { lastName: 'Lovelace' }, ['firstName']],
    ['without both names', {}, ['firstName', 'lastName']],
    ['with an empty lastName', { firstName: 'Ada', lastName: '' }, ['lastName']],
    ['with a bad e-mail', { ...ada, email: 'not-an-address' }, ['email']],
    ['with a number for a name', { firstName: 7, lastName: 'L' }, ['firstName']],
    ['with an unknown field', { ...ada, nickname: 'A' }, ['nickname']],
    ['with two unknown fields', { ...ada, id: 'con_x', createdAt: 'now' }, ['createdAt', 'id']],
    ['with a name over 200 characters', { ...ada, firstName: 'x'.repeat(201) }, ['firstName']],
  ])('answers 400 validation_failed %s, and stores nothing', async (_name, payload, paths) => {
    const { token } = await server().tokenFor('AGENT');
    const response = await call(token, 'POST', '/api/contacts', payload);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    const body = response.json();
    expect(body).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(body.errors.map((error: { path: string }) => error.path).sort()).toEqual(paths);
    expect(await rows('SELECT id FROM contacts')).toEqual([]);
    expect(await rows('SELECT id FROM outbox_events')).toEqual([]);
  });

  it('names an unknown field in errors, rather than ignoring it', async () => {
    const { token } = await server().tokenFor('AGENT');
    const response = await call(token, 'POST', '/api/contacts', { ...ada, nickname: 'A' });
    expect(response.json().errors).toEqual([
      { path: 'nickname', message: 'nickname is not a field of this request' },
    ]);
  });

  it('answers 400 for a body that is not an object', async () => {
    const { token } = await server().tokenFor('AGENT');
    for (const payload of ['[]', '"Ada"', 'null']) {
      const response = await server().app.inject({
        method: 'POST',
        url: '/api/contacts',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        payload,
      });
      expect(response.statusCode, payload).toBe(400);
    }
  });

  it('checks the token before the body: no token with a bad body is 401', async () => {
    const response = await server().app.inject({
      method: 'POST',
      url: '/api/contacts',
      payload: { nope: true },
    });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'token_missing' });
  });
});

describe('PATCH /api/contacts/:id', () => {
  it('changes only the fields sent, moves updatedAt, and null removes email or phone', async () => {
    const { token } = await server().tokenFor('AGENT');
    const created = (
      await call(token, 'POST', '/api/contacts', { ...ada, phone: '+44 20 7946 0000' })
    ).json();
    server().clock.advance(60_000);
    const response = await call(token, 'PATCH', `/api/contacts/${created.id}`, {
      lifecycle: 'PATIENT',
      email: null,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      id: created.id,
      firstName: 'Ada',
      lastName: 'Lovelace',
      lifecycle: 'PATIENT',
      phone: '+44 20 7946 0000',
      createdAt: '2026-03-01T09:00:00.000Z',
      updatedAt: '2026-03-01T09:01:00.000Z',
    });
    expect((await call(token, 'GET', `/api/contacts/${created.id}`)).json()).toEqual(
      response.json(),
    );
    // Updates are not audited (the record carries updatedAt); creates and deletions are.
    expect(
      await rows(`SELECT action FROM audit_entries WHERE action LIKE 'contact.%' ORDER BY seq`),
    ).toEqual([{ action: 'contact.created' }]);
  });

  it('answers the contact unchanged for an empty body', async () => {
    const { token } = await server().tokenFor('AGENT');
    const created = (await call(token, 'POST', '/api/contacts', ada)).json();
    server().clock.advance(60_000);
    const response = await call(token, 'PATCH', `/api/contacts/${created.id}`, {});
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(created);
  });

  it.each([
    ['a null firstName', { firstName: null }, ['firstName']],
    ['an unknown field', { id: 'con_other' }, ['id']],
    ['a bad e-mail', { email: 'x' }, ['email']],
  ])('answers 400 validation_failed for %s', async (_name, payload, paths) => {
    const { token } = await server().tokenFor('AGENT');
    const created = (await call(token, 'POST', '/api/contacts', ada)).json();
    const response = await call(token, 'PATCH', `/api/contacts/${created.id}`, payload);
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body.code).toBe('validation_failed');
    expect(body.errors.map((error: { path: string }) => error.path)).toEqual(paths);
    expect((await call(token, 'GET', `/api/contacts/${created.id}`)).json()).toEqual(created);
  });
});

describe('DELETE /api/contacts/:id', () => {
  it('deletes with 204 and no body, removes its deals, and audits contact.deleted', async () => {
    const { token, accountId } = await server().tokenFor('ADMIN');
    const created = (await call(token, 'POST', '/api/contacts', ada)).json();
    await server().database.query(
      `INSERT INTO deals (id, contact_id, title, stage, amount_cents, currency, created_at, updated_at)
       VALUES ('deal_1', $1, 'Check-up', 'OPEN', 100, 'USD', now(), now()),
              ('deal_2', $1, 'Follow-up', 'OPEN', 100, 'USD', now(), now())`,
      [created.id],
    );
    server().clock.advance(1000);
    const response = await call(token, 'DELETE', `/api/contacts/${created.id}`);
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect((await call(token, 'GET', `/api/contacts/${created.id}`)).statusCode).toBe(404);
    expect(await rows('SELECT id FROM deals')).toEqual([]);
    await transactionsSettled(server().database);
    const audit = await call(token, 'GET', '/api/audit?limit=200');
    const entries = audit
      .json()
      .entries.filter((entry: { action: string }) => entry.action === 'contact.deleted');
    expect(entries).toEqual([
      {
        id: expect.stringMatching(/^aud_/),
        occurredAt: '2026-03-01T09:00:01.000Z',
        action: 'contact.deleted',
        actor: { type: 'service_account', id: accountId },
        target: { type: 'contact', id: created.id },
        metadata: { dealsDeleted: 2 },
      },
    ]);
  });

  it('answers 404 and audits nothing for an unknown id', async () => {
    const { token } = await server().tokenFor('ADMIN');
    const response = await call(token, 'DELETE', '/api/contacts/con_unknown');
    expect(response.statusCode).toBe(404);
    expect(await rows(`SELECT id FROM audit_entries WHERE action = 'contact.deleted'`)).toEqual([]);
  });
});

describe('unknown ids', () => {
  it.each([
    ['GET', undefined],
    ['PATCH', { lifecycle: 'PATIENT' }],
    ['PATCH', {}],
    ['DELETE', undefined],
  ] as const)('%s answers 404 not_found', async (method, payload) => {
    const { token } = await server().tokenFor('ADMIN');
    const response = await call(token, method, '/api/contacts/con_01NOPE', payload);
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.json()).toMatchObject({ status: 404, code: 'not_found' });
  });
});

describe('capabilities', () => {
  it.each(roles)('%s gets exactly the contact routes its role allows', async (role) => {
    const { token } = await server().tokenFor(role);
    const { token: admin } = await server().tokenFor('ADMIN');
    const existing = (await call(admin, 'POST', '/api/contacts', ada)).json();
    const expectations: [
      Method,
      string,
      unknown,
      number,
      'contacts.read' | 'contacts.write' | 'contacts.delete',
    ][] = [
      ['GET', '/api/contacts', undefined, 200, 'contacts.read'],
      ['GET', '/api/contacts/count', undefined, 200, 'contacts.read'],
      ['GET', `/api/contacts/${existing.id}`, undefined, 200, 'contacts.read'],
      ['POST', '/api/contacts', ada, 201, 'contacts.write'],
      ['PATCH', `/api/contacts/${existing.id}`, { lastName: 'Byron' }, 200, 'contacts.write'],
      ['DELETE', `/api/contacts/${existing.id}`, undefined, 204, 'contacts.delete'],
    ];
    for (const [method, url, payload, success, capability] of expectations) {
      const response = await call(token, method, url, payload);
      const expected = hasCapability(role, capability) ? success : 403;
      expect(response.statusCode, `${role} ${method} ${url}`).toBe(expected);
      if (expected === 403) expect(response.json()).toMatchObject({ code: 'forbidden' });
    }
  });
});

describe('GET /api/contacts', () => {
  async function seed(count: number) {
    await server().database.query(
      `INSERT INTO contacts (id, first_name, last_name, lifecycle, created_at, updated_at)
       SELECT 'con_' || lpad(n::text, 26, '0'), 'First' || n, 'Last' || n, 'LEAD',
              timestamptz '2026-01-01T00:00:00Z', timestamptz '2026-01-01T00:00:00Z'
         FROM generate_series(1, $1::int) AS n`,
      [count],
    );
  }

  it('lists under the key contacts, oldest first, with nextCursor, no count and no Link header', async () => {
    const { token } = await server().tokenFor('READONLY');
    const { token: agent } = await server().tokenFor('AGENT');
    const created = [];
    for (const firstName of ['A', 'B', 'C']) {
      server().clock.advance(1000);
      created.push((await call(agent, 'POST', '/api/contacts', { ...ada, firstName })).json());
    }
    const response = await call(token, 'GET', '/api/contacts');
    expect(response.statusCode).toBe(200);
    expect(response.headers.link).toBeUndefined();
    const body = response.json();
    expect(Object.keys(body)).toEqual(['contacts', 'nextCursor']);
    expect(body).toEqual({ contacts: created, nextCursor: null });
    expect(contactListSchema.parse(body)).toEqual(body);
  });

  it('pages with limit and offset in createdAt, id order, ties broken by id', async () => {
    await seed(5);
    const { token } = await server().tokenFor('READONLY');
    const pages: string[][] = [];
    for (const offset of [0, 2, 4, 6]) {
      const response = await call(token, 'GET', `/api/contacts?limit=2&offset=${offset}`);
      pages.push(response.json().contacts.map((contact: { id: string }) => contact.id));
    }
    const id = (n: number) => `con_${String(n).padStart(26, '0')}`;
    expect(pages).toEqual([[id(1), id(2)], [id(3), id(4)], [id(5)], []]);
  });

  it('defaults to 50 and allows 200', async () => {
    await seed(201);
    const { token } = await server().tokenFor('READONLY');
    expect((await call(token, 'GET', '/api/contacts')).json().contacts).toHaveLength(50);
    expect((await call(token, 'GET', '/api/contacts?limit=200')).json().contacts).toHaveLength(200);
    expect(
      (await call(token, 'GET', '/api/contacts?limit=200&offset=200')).json().contacts,
    ).toHaveLength(1);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=201', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=x', 'offset'],
  ])('answers 400 validation_failed for %s (never clamped)', async (query, path) => {
    const { token } = await server().tokenFor('READONLY');
    const response = await call(token, 'GET', `/api/contacts?${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'validation_failed',
      errors: [expect.objectContaining({ path })],
    });
  });
});

describe('GET /api/contacts/count', () => {
  it('answers {"count": n}', async () => {
    const { token } = await server().tokenFor('READONLY');
    expect((await call(token, 'GET', '/api/contacts/count')).json()).toEqual({ count: 0 });
    const { token: agent } = await server().tokenFor('AGENT');
    await call(agent, 'POST', '/api/contacts', ada);
    await call(agent, 'POST', '/api/contacts', ada);
    const response = await call(token, 'GET', '/api/contacts/count');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ count: 2 });
  });
});

describe('API reference', () => {
  it('documents the contact routes with the SDK schemas', async () => {
    const document = (await server().app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(document.paths['/api/contacts']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(document.paths['/api/contacts/{id}']).sort()).toEqual([
      'delete',
      'get',
      'patch',
    ]);
    expect(document.paths['/api/contacts/count'].get.security).toEqual([
      { bearerAuth: [] },
      { cookieAuth: [] },
    ]);
    const create = document.paths['/api/contacts'].post;
    const body = create.requestBody.content['application/json'].schema;
    expect(body.required.sort()).toEqual(['firstName', 'lastName']);
    expect(Object.keys(body.properties).sort()).toEqual([
      'email',
      'firstName',
      'lastName',
      'lifecycle',
      'phone',
    ]);
    const created = create.responses['201'].content['application/json'].schema;
    expect(Object.keys(created.properties)).toEqual([
      'id',
      'firstName',
      'lastName',
      'lifecycle',
      'email',
      'phone',
      'createdAt',
      'updatedAt',
    ]);
    expect(Object.keys(create.responses).sort()).toEqual([
      '201',
      '400',
      '401',
      '403',
      '409',
      '413',
      '415',
      '429',
    ]);
    // No unique field: a create conflicts only with its own Idempotency-Key.
    expect(create.responses['409'].description).toBe(
      'Problem codes: idempotency_conflict, idempotency_in_progress',
    );
  });
});

describe('POST /api/contacts and the delivery workers', () => {
  let wakes = 0;
  const woken = useTestServer({
    onOutboxEvent: () => {
      wakes++;
    },
  });

  it('wakes them only when an endpoint takes the event; else the event is written dispatched', async () => {
    wakes = 0;
    const { token } = await woken().tokenFor('AGENT');
    const create = (firstName: string) =>
      woken().app.inject({
        method: 'POST',
        url: '/api/contacts',
        headers: { authorization: `Bearer ${token}` },
        payload: { firstName, lastName: 'Test' },
      });
    expect((await create('Ada')).statusCode).toBe(201);
    expect(wakes).toBe(0);
    await createEndpointStore({ database: woken().database, clock: woken().clock }).add({
      url: 'https://hooks.example.com/',
    });
    expect((await create('Grace')).statusCode).toBe(201);
    expect(wakes).toBe(1);
    const { rows } = await woken().database.query(
      `SELECT data->>'firstName' AS name, dispatched_at IS NULL AS pending
         FROM outbox_events ORDER BY seq`,
    );
    expect(rows).toEqual([
      { name: 'Ada', pending: false },
      { name: 'Grace', pending: true },
    ]);
  });
});

import { contactBatchResponseSchema } from '@followup/sdk';
import { describe, expect, it } from 'vitest';
import { transactionsSettled } from '../../test/support/database.js';
import { useTestServer } from '../../test/support/server.js';

const server = useTestServer();

async function batch(token: string, contacts: unknown[], headers: Record<string, string> = {}) {
  return server().app.inject({
    method: 'POST',
    url: '/api/contacts/batch',
    headers: { authorization: `Bearer ${token}`, ...headers },
    payload: { contacts },
  });
}

async function post(token: string, body: object) {
  return (
    await server().app.inject({
      method: 'POST',
      url: '/api/contacts',
      headers: { authorization: `Bearer ${token}` },
      payload: body as Record<string, unknown>,
    })
  ).json();
}

async function allContacts() {
  return (
    await server().database.query<{ id: string; first_name: string; email: string | null }>(
      'SELECT id, first_name, email FROM contacts ORDER BY created_at, id',
    )
  ).rows;
}

describe('POST /api/contacts/batch', () => {
  it('creates, updates by e-mail (any case) and reports invalid items by index', async () => {
    const { token } = await server().tokenFor('AGENT');
    const ada = await post(token, { firstName: 'Ada', lastName: 'L', email: 'ada@example.com' });
    // A second contact with the same address, created later: the batch updates the oldest.
    await post(token, { firstName: 'Ada2', lastName: 'L', email: 'ADA@example.com' });
    server().clock.advance(1000);
    const response = await batch(token, [
      { firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com' },
      { firstName: 'Ada', lastName: 'Byron', email: 'Ada@Example.com', lifecycle: 'PATIENT' },
      { firstName: 'No', lastName: 'Email' },
      { firstName: 'Bad', lastName: 'Email', email: 'not-an-address' },
      { firstName: 'Extra', lastName: 'Field', email: 'x@example.com', colour: 'red' },
      'not an object',
      { firstName: 'Grace B.', lastName: 'Hopper', email: 'GRACE@example.com' },
    ]);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(contactBatchResponseSchema.parse(body)).toEqual(body);
    const { results } = body;
    expect(
      results.map((result: { index: number; result: string }) => [result.index, result.result]),
    ).toEqual([
      [0, 'created'],
      [1, 'updated'],
      [2, 'invalid'],
      [3, 'invalid'],
      [4, 'invalid'],
      [5, 'invalid'],
      [6, 'updated'],
    ]);
    expect(results[1].contact).toMatchObject({
      id: ada.id,
      lastName: 'Byron',
      lifecycle: 'PATIENT',
      email: 'Ada@Example.com',
      updatedAt: '2026-03-01T09:00:01.000Z',
    });
    expect(results[2].errors).toEqual([{ path: 'email', message: expect.any(String) }]);
    expect(results[3].errors).toEqual([{ path: 'email', message: expect.any(String) }]);
    expect(results[4].errors).toEqual([{ path: 'colour', message: expect.any(String) }]);
    // The item created earlier in the same batch is the one item 6 updates.
    expect(results[6].contact.id).toBe(results[0].contact.id);
    expect(results[6].contact.firstName).toBe('Grace B.');
    expect((await allContacts()).map((row) => row.first_name)).toEqual(['Ada', 'Ada2', 'Grace B.']);
  });

  it('changes nothing when sent again: no new updatedAt, no event, no change in the feed', async () => {
    const { token } = await server().tokenFor('AGENT');
    const items = [
      { firstName: 'A', lastName: 'X', email: 'a@example.com' },
      { firstName: 'B', lastName: 'X', email: 'b@example.com', phone: '+1 555' },
    ];
    const first = (await batch(token, items)).json();
    const events = async () =>
      (
        await server().database.query<{ event: string }>(
          'SELECT event FROM outbox_events ORDER BY seq',
        )
      ).rows.map((row) => row.event);
    expect(await events()).toEqual(['contact.created', 'contact.created']);
    await transactionsSettled(server().database);
    const feedBefore = (
      await server().app.inject({
        method: 'GET',
        url: '/api/contacts/changes',
        headers: { authorization: `Bearer ${token}` },
      })
    ).json();
    server().clock.advance(60_000);
    const again = (await batch(token, items)).json();
    expect(again.results.map((result: { result: string }) => result.result)).toEqual([
      'updated',
      'updated',
    ]);
    expect(again.results.map((result: { contact: unknown }) => result.contact)).toEqual(
      first.results.map((result: { contact: unknown }) => result.contact),
    );
    expect(await events()).toEqual(['contact.created', 'contact.created']);
    await transactionsSettled(server().database);
    const feedAfter = (
      await server().app.inject({
        method: 'GET',
        url: `/api/contacts/changes?cursor=${feedBefore.nextCursor}`,
        headers: { authorization: `Bearer ${token}` },
      })
    ).json();
    expect(feedAfter.changes).toEqual([]);
    // A real change is an update with its event.
    await batch(token, [{ ...items[0], lastName: 'Y' }]);
    expect(await events()).toEqual(['contact.created', 'contact.created', 'contact.updated']);
  });

  it('answers a retry with the same Idempotency-Key from memory, and refuses another body', async () => {
    const { token } = await server().tokenFor('AGENT');
    const items = [{ firstName: 'A', lastName: 'X', email: 'a@example.com' }];
    const headers = { 'idempotency-key': 'batch-key-1' };
    const first = await batch(token, items, headers);
    const retry = await batch(token, items, headers);
    expect(retry.statusCode).toBe(200);
    expect(retry.json()).toEqual(first.json());
    expect(await allContacts()).toHaveLength(1);
    const other = await batch(token, [{ ...items[0], firstName: 'B' }], headers);
    expect(other.statusCode).toBe(409);
    expect(other.json()).toMatchObject({ code: 'idempotency_conflict' });
  });

  it.each([
    ['no items', []],
    [
      '201 items',
      Array.from({ length: 201 }, (_, n) => ({
        firstName: 'A',
        lastName: 'B',
        email: `${n}@e.com`,
      })),
    ],
  ])('answers 400 validation_failed for %s, writing nothing', async (_, contacts) => {
    const { token } = await server().tokenFor('AGENT');
    const response = await batch(token, contacts);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'validation_failed',
      errors: [{ path: 'contacts' }],
    });
    expect(await allContacts()).toEqual([]);
  });

  it('takes 200 items in one call', async () => {
    const { token } = await server().tokenFor('AGENT');
    const contacts = Array.from({ length: 200 }, (_, n) => ({
      firstName: `F${n}`,
      lastName: 'L',
      email: `p${n}@example.com`,
    }));
    const response = await batch(token, contacts);
    expect(response.statusCode).toBe(200);
    expect(response.json().results).toHaveLength(200);
    expect(await allContacts()).toHaveLength(200);
  });

  it('needs contacts.write', async () => {
    const { token } = await server().tokenFor('READONLY');
    const response = await batch(token, [
      { firstName: 'A', lastName: 'B', email: 'a@example.com' },
    ]);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ code: 'forbidden' });
  });
});

describe('API reference', () => {
  it('documents the batch and the change feed with the SDK schemas', async () => {
    const document = (await server().app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const batchRoute = document.paths['/api/contacts/batch'].post;
    expect(batchRoute.security).toContainEqual({ bearerAuth: [] });
    expect(
      Object.keys(batchRoute.requestBody.content['application/json'].schema.properties),
    ).toEqual(['contacts']);
    const result = batchRoute.responses['200'].content['application/json'].schema;
    expect(Object.keys(result.properties)).toEqual(['results']);
    const feed = document.paths['/api/contacts/changes'].get;
    expect(feed.parameters.map((parameter: { name: string }) => parameter.name)).toEqual([
      'limit',
      'cursor',
      'updatedSince',
    ]);
    expect(
      Object.keys(feed.responses['200'].content['application/json'].schema.properties),
    ).toEqual(['changes', 'nextCursor', 'hasMore']);
  });
});

import { INPUT_LIMITS } from '@followup/sdk';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/support/server.js';
import { MAX_JSON_BODY_DEPTH } from '../plugins/json-body.js';

const server = useTestServer();

const tables = ['contacts', 'deals', 'sequences', 'campaigns', 'users', 'messages', 'ehr_receipts'];

async function counts(): Promise<Record<string, number>> {
  const result: Record<string, number> = {};
  for (const table of tables) {
    const { rows } = await server().database.query<{ n: string }>(
      `SELECT count(*) AS n FROM ${table}`,
    );
    result[table] = Number(rows[0]?.n);
  }
  return result;
}

async function send(method: 'POST' | 'PATCH', url: string, body: string, token?: string) {
  return server().app.inject({
    method,
    url,
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    payload: body,
  });
}

function expectRefused(response: Awaited<ReturnType<typeof send>>, path: string) {
  expect(response.statusCode).toBe(400);
  expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  const problem = response.json();
  expect(problem.code).toBe('validation_failed');
  expect(problem.errors.map((error: { path: string }) => error.path)).toContain(path);
}

// JSON texts with the hostile value spelled as an escape, as a client would send it.
const hostile = { nul: '"a\\u0000b"', highAlone: '"a\\ud800b"', lowAlone: '"\\udfff"' };

describe('text the database cannot store', () => {
  it('is refused with 400 naming the field, in every text field, and nothing is stored', async () => {
    const { token } = await server().tokenFor('ADMIN');
    const contact = (
      await send('POST', '/api/contacts', '{"firstName":"A","lastName":"B"}', token)
    ).json();
    const before = await counts();
    const bodies: [string, string, Record<string, string>, string[]][] = [
      [
        'POST',
        '/api/contacts',
        { firstName: '"A"', lastName: '"B"', lifecycle: '"LEAD"', phone: '"1"' },
        ['firstName', 'lastName', 'lifecycle', 'phone'],
      ],
      ['PATCH', `/api/contacts/${contact.id}`, { lifecycle: '"PATIENT"' }, ['lifecycle']],
      [
        'POST',
        '/api/deals',
        {
          contactId: JSON.stringify(contact.id),
          title: '"T"',
          stage: '"OPEN"',
          amountCents: '1',
          currency: '"USD"',
        },
        ['contactId', 'title', 'stage'],
      ],
      ['POST', '/api/sequences', { name: '"S"', status: '"DRAFT"' }, ['name', 'status']],
      ['POST', '/api/campaigns', { name: '"C"', status: '"DRAFT"' }, ['name', 'status']],
      [
        'POST',
        '/api/users',
        { email: '"u@example.com"', name: '"N"', role: '"AGENT"' },
        ['name', 'email'],
      ],
      [
        'POST',
        '/api/inbox/webhook',
        { from: '"a@example.com"', subject: '"S"', text: '"T"' },
        ['from', 'subject', 'text'],
      ],
    ];
    for (const [method, url, fields, textFields] of bodies) {
      for (const field of textFields) {
        for (const value of Object.values(hostile)) {
          const members = Object.entries({ ...fields, [field]: value }).map(
            ([key, json]) => `"${key}":${json}`,
          );
          const response = await send(method as 'POST', url, `{${members.join(',')}}`, token);
          expectRefused(response, field);
        }
      }
    }
    const stored = await server().database.query('SELECT lifecycle FROM contacts');
    expect(stored.rows).toEqual([{ lifecycle: 'LEAD' }]);
    expect(await counts()).toEqual(before);
  });

  it('is refused in sequence steps, their extra fields and their field names', async () => {
    const { token } = await server().tokenFor('MANAGER');
    const step = (extra: string) =>
      `{"name":"S","steps":[{"action":"EMAIL","delayHours":1${extra}}]}`;
    expectRefused(
      await send('POST', '/api/sequences', step(',"template":"\\u0000"'), token),
      'steps.0.template',
    );
    expectRefused(
      await send('POST', '/api/sequences', step(',"note":{"a":["\\ud800"]}'), token),
      'steps.0.note.a.0',
    );
    expectRefused(
      await send('POST', '/api/sequences', step(',"k\\u0000":1'), token),
      'steps.0.k\u0000',
    );
    expect((await counts()).sequences).toBe(0);
  });

  it('is refused in an id or an EHR vendor key in the path', async () => {
    const { token } = await server().tokenFor('ADMIN');
    const got = await server().app.inject({
      method: 'GET',
      url: '/api/contacts/con_%00',
      headers: { authorization: `Bearer ${token}` },
    });
    expectRefused(got as never, 'id');
    const ehr = await send('POST', '/api/ehr/webhooks/athena%00health', '{}');
    expectRefused(ehr, 'ehr');
    expect((await counts()).ehr_receipts).toBe(0);
  });
});

describe('deeply nested JSON in sequence steps', () => {
  it('is refused with 400 naming the field, or as invalid_json past the body limit, and nothing is stored', async () => {
    const { token } = await server().tokenFor('MANAGER');
    const step = (depth: number) =>
      `{"name":"S","steps":[{"action":"EMAIL","delayHours":1,"x":${'['.repeat(depth)}${']'.repeat(depth)}}]}`;
    // The step is 3 levels in: past MAX_JSON_BODY_DEPTH - 3 the body parser refuses it whole.
    for (const depth of [INPUT_LIMITS.jsonDepth + 1, MAX_JSON_BODY_DEPTH - 3]) {
      const response = await send('POST', '/api/sequences', step(depth), token);
      expectRefused(response, `steps.0.x${'.0'.repeat(INPUT_LIMITS.jsonDepth)}`);
    }
    for (const depth of [MAX_JSON_BODY_DEPTH - 2, 5000, 200_000]) {
      const response = await send('POST', '/api/sequences', step(depth), token);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'invalid_json' });
    }
    const ok = `{"name":"S","steps":[{"action":"EMAIL","delayHours":1,"x":${'['.repeat(INPUT_LIMITS.jsonDepth)}${']'.repeat(INPUT_LIMITS.jsonDepth)}}]}`;
    expect((await send('POST', '/api/sequences', ok, token)).statusCode).toBe(201);
    expect((await counts()).sequences).toBe(1);
  });
});

describe('field limits', () => {
  it('refuse a value one past its limit with 400 naming the field', async () => {
    const { token } = await server().tokenFor('ADMIN');
    const over = (limit: number) => JSON.stringify('x'.repeat(limit + 1));
    expectRefused(
      await send(
        'POST',
        '/api/contacts',
        `{"firstName":"A","lastName":"B","lifecycle":${over(INPUT_LIMITS.enumValue)}}`,
        token,
      ),
      'lifecycle',
    );
    expectRefused(
      await send(
        'POST',
        '/api/inbox/webhook',
        `{"from":"a@example.com","subject":"S","text":${over(INPUT_LIMITS.inboxText)}}`,
      ),
      'text',
    );
    const steps = JSON.stringify(
      Array(INPUT_LIMITS.sequenceSteps + 1).fill({ action: 'SMS', delayHours: 0 }),
    );
    expectRefused(
      await send('POST', '/api/sequences', `{"name":"S","steps":${steps}}`, token),
      'steps',
    );
    expect(await counts()).toMatchObject({ contacts: 0, messages: 0, sequences: 0 });
    // At the limit, accepted.
    const atLimit = await send(
      'POST',
      '/api/inbox/webhook',
      `{"from":"a@example.com","subject":"S","text":${JSON.stringify('x'.repeat(INPUT_LIMITS.inboxText))}}`,
    );
    expect(atLimit.statusCode).toBe(201);
  });

  it('are in the OpenAPI document', async () => {
    const document = (await server().app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const schema =
      document.paths['/api/contacts'].post.requestBody.content['application/json'].schema;
    expect(schema.properties.firstName.maxLength).toBe(INPUT_LIMITS.name);
    expect(schema.properties.lifecycle.maxLength).toBe(INPUT_LIMITS.enumValue);
  });
});

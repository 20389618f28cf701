import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/support/server.js';
import { MAX_JSON_BODY_DEPTH } from './json-body.js';

/** What the test route saw run: its hooks and its handler. */
const ran = { preValidation: 0, preHandler: 0, handler: 0 };

function addEchoRoute(app: FastifyInstance) {
  app.post(
    '/test/echo',
    {
      preValidation: (_request, _reply, done) => {
        ran.preValidation++;
        done();
      },
      preHandler: (_request, _reply, done) => {
        ran.preHandler++;
        done();
      },
    },
    async (request) => {
      ran.handler++;
      return { body: request.body };
    },
  );
}

const server = useTestServer({ configure: addEchoRoute });

function post(url: string, payload: string, token?: string) {
  return server().app.inject({
    method: 'POST',
    url,
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    payload,
  });
}

/** A JSON text nested `depth` deep: arrays, objects, or both in turn, around `1`. */
function nested(depth: number, kind: 'array' | 'object' | 'mixed'): string {
  let text = '1';
  for (let level = 0; level < depth; level++) {
    const array = kind === 'array' || (kind === 'mixed' && level % 2 === 0);
    text = array ? `[${text}]` : `{"a":${text}}`;
  }
  return text;
}

function expectTooDeep(response: Awaited<ReturnType<typeof post>>) {
  expect(response.statusCode).toBe(400);
  expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  expect(response.json()).toMatchObject({ status: 400, code: 'invalid_json' });
  expect(response.json().detail).toContain(`${MAX_JSON_BODY_DEPTH}`);
}

describe('the JSON body parser', () => {
  it('refuses a body nested past the limit on every JSON route, before the route runs', async () => {
    const { token } = await server().tokenFor('ADMIN');
    ran.preValidation = ran.preHandler = ran.handler = 0;
    for (const depth of [MAX_JSON_BODY_DEPTH + 1, 5000, 100_000]) {
      expectTooDeep(await post('/test/echo', nested(depth, 'array')));
      expectTooDeep(await post('/test/echo', nested(depth, 'object')));
    }
    expect(ran).toEqual({ preValidation: 0, preHandler: 0, handler: 0 });
    // Routes of the API, with and without an Idempotency-Key: refused alike, nothing stored.
    const deepField = `{"firstName":"A","lastName":"B","x":${nested(MAX_JSON_BODY_DEPTH, 'array')}}`;
    expectTooDeep(await post('/api/contacts', deepField, token));
    expectTooDeep(
      await server().app.inject({
        method: 'POST',
        url: '/api/contacts',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${token}`,
          'idempotency-key': 'deep-1',
        },
        payload: deepField,
      }),
    );
    expectTooDeep(await post('/api/inbox/webhook', `{"from":${nested(100, 'mixed')}}`));
    const { rows } = await server().database.query<{ n: number }>(
      'SELECT (SELECT count(*) FROM contacts) + (SELECT count(*) FROM messages) + (SELECT count(*) FROM idempotency_keys) AS n',
    );
    expect(Number(rows[0]?.n)).toBe(0);
  });

  it('parses a body nested exactly to the limit, once, as JSON.parse reads it', async () => {
    for (const kind of ['array', 'object', 'mixed'] as const) {
      const text = nested(MAX_JSON_BODY_DEPTH, kind);
      const response = await post('/test/echo', text);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ body: JSON.parse(text) });
    }
  });

  it('does not count brackets inside strings, escaped quotes included', async () => {
    const text = JSON.stringify({ a: `\\"${'['.repeat(10_000)}{`, b: ['"]]', '\\'] });
    const response = await post('/test/echo', text);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ body: JSON.parse(text) });
  });

  it('answers by depth alone: invalid_json past the limit, the parsed body within it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 3 * MAX_JSON_BODY_DEPTH }),
        fc.constantFrom('array', 'object', 'mixed'),
        async (depth, kind) => {
          const text = nested(depth, kind);
          const response = await post('/test/echo', text);
          if (depth > MAX_JSON_BODY_DEPTH) expectTooDeep(response);
          else expect(response.json()).toEqual({ body: JSON.parse(text) });
        },
      ),
      { numRuns: 60 },
    );
  });

  it("keeps Fastify's refusals: malformed, empty, and __proto__ or constructor.prototype keys", async () => {
    for (const text of [
      '{',
      '',
      '{"__proto__":{"isAdmin":true}}',
      '{"constructor":{"prototype":{"polluted":true}}}',
    ]) {
      const response = await post('/test/echo', text);
      expect(response.statusCode, text).toBe(400);
      expect(response.json().code, text).toBe('invalid_json');
    }
  });
});

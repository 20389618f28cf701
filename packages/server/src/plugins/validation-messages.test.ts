import { createContactInputSchema, sequenceStepInputSchema } from '@followup/sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { useTestServer } from '../../test/support/server.js';
import { validationErrorMap, validationErrors } from './validation-messages.js';

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies, read by the tests
type Json = any;

/** zod's own wording, which names neither the field nor what to send. */
const zodWording =
  /Invalid (input|option|email|string|url|key|element)|Too (big|small)|expected \w+, received|Unrecognized key/;

function messagesOf(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value, { error: validationErrorMap });
  return validationErrors(result.error?.issues ?? [], 'the request body').map(
    (error) => error.message,
  );
}

describe('validationMessage', () => {
  it('names the field and says what to send, for each kind of issue', () => {
    expect(messagesOf(createContactInputSchema, {})).toEqual([
      'firstName is required',
      'lastName is required',
    ]);
    expect(messagesOf(createContactInputSchema, { firstName: 7, lastName: '' })).toEqual([
      'firstName must be a string',
      'lastName must not be empty',
    ]);
    expect(
      messagesOf(createContactInputSchema, { firstName: 'A', lastName: 'L', email: 'nope' }),
    ).toEqual(['email must be an e-mail address']);
    expect(
      messagesOf(createContactInputSchema, { firstName: 'x'.repeat(201), lastName: 'L' }),
    ).toEqual(['firstName must have at most 200 characters']);
    expect(messagesOf(createContactInputSchema, [])).toEqual([
      'the request body must be an object',
    ]);
    expect(
      messagesOf(z.object({ steps: z.array(sequenceStepInputSchema) }), {
        steps: [{ delayHours: 1.5 }],
      }),
    ).toEqual(['steps.0.action is required', 'steps.0.delayHours must be a whole number']);
    expect(messagesOf(z.object({ stage: z.enum(['OPEN', 'WON']) }), { stage: 'open' })).toEqual([
      'stage must be one of OPEN, WON (case-sensitive)',
    ]);
    expect(messagesOf(z.object({ n: z.number().min(1).max(9) }), { n: 10 })).toEqual([
      'n must be at most 9',
    ]);
    const repeatable = z.object({
      kind: z.union([z.enum(['a', 'b']), z.array(z.enum(['a', 'b']))]),
    });
    expect(messagesOf(repeatable, { kind: 'c' })).toEqual([
      'kind must be one of a, b (case-sensitive)',
    ]);
    expect(messagesOf(repeatable, {})).toEqual(['kind is required']);
  });

  it('keeps the sentences a schema writes itself, and names the field before its predicates', () => {
    const schema = z.object({
      limit: z.string().regex(/^\d+$/, 'limit must be digits'),
      currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD'),
    });
    expect(messagesOf(schema, { limit: 'x', currency: 'usd' })).toEqual([
      'limit must be digits',
      'currency must be an ISO 4217 code such as USD',
    ]);
  });

  it('names an unknown field', () => {
    expect(messagesOf(z.strictObject({}), { nickname: 'x' })).toEqual([
      'the request body has no field named nickname',
    ]);
  });
});

describe('the validation messages of every route', () => {
  const server = useTestServer();

  async function send(method: string, url: string, payload?: unknown) {
    const { token } = await server().tokenFor('ADMIN');
    const response = await server().app.inject({
      method: method as 'POST',
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: response.statusCode, body: response.json() as Json };
  }

  it.each([
    [
      'POST',
      '/api/contacts',
      {},
      [
        { path: 'firstName', message: 'firstName is required' },
        { path: 'lastName', message: 'lastName is required' },
      ],
    ],
    [
      'POST',
      '/api/deals',
      { title: 'Plan', amountCents: '12' },
      [
        { path: 'contactId', message: 'contactId is required' },
        { path: 'amountCents', message: 'amountCents must be a number' },
        { path: 'currency', message: 'currency is required' },
      ],
    ],
    [
      'POST',
      '/api/users',
      { name: 'Ada' },
      [
        { path: 'email', message: 'email is required' },
        { path: 'role', message: 'role is required' },
      ],
    ],
    [
      'POST',
      '/api/sequences',
      { name: 'Onboarding', steps: [{ delayHours: 0 }, { action: 'EMAIL' }] },
      [
        { path: 'steps.0.action', message: 'steps.0.action is required' },
        { path: 'steps.1.delayHours', message: 'steps.1.delayHours is required' },
      ],
    ],
    [
      'POST',
      '/api/campaigns',
      { status: 'ACTIVE' },
      [{ path: 'name', message: 'name is required' }],
    ],
    [
      'PATCH',
      '/api/contacts/con_1',
      { firstName: null },
      [{ path: 'firstName', message: 'firstName must be a string' }],
    ],
    [
      'POST',
      '/api/users/invitations',
      { email: 'a@example.com', role: 'OWNER' },
      [
        {
          path: 'role',
          message: 'role must be one of ADMIN, MANAGER, AGENT, READONLY (case-sensitive)',
        },
      ],
    ],
  ] as const)('%s %s names each missing or wrong field', async (method, url, payload, errors) => {
    const { status, body } = await send(method, url, payload);
    expect(status).toBe(400);
    expect(body.code).toBe('validation_failed');
    expect(body.errors).toEqual(errors);
  });

  it('POST /api/inbox/webhook names each missing field', async () => {
    const response = await server().app.inject({
      method: 'POST',
      url: '/api/inbox/webhook',
      payload: { text: 'hello' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors).toEqual([
      { path: 'from', message: 'from is required' },
      { path: 'subject', message: 'subject is required' },
    ]);
  });

  it('POST /api/contacts/batch names each missing field of an invalid item', async () => {
    const { body } = await send('POST', '/api/contacts/batch', {
      contacts: [{ firstName: 'Ada', lastName: 'L' }, 'Ada'],
    });
    expect(body.results).toEqual([
      { index: 0, result: 'invalid', errors: [{ path: 'email', message: 'email is required' }] },
      {
        index: 1,
        result: 'invalid',
        errors: [{ path: '', message: 'the contact must be an object' }],
      },
    ]);
  });

  it('never use zod’s wording, on any body or query parameter of any route', async () => {
    const document = (await server().app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const seen: string[] = [];
    for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
      for (const [method, operation] of Object.entries(item as Record<string, Json>)) {
        const url = path.replace(/\{[^}]+\}/g, 'x_1');
        const schema = operation.requestBody?.content?.['application/json']?.schema;
        const attempts: { url: string; payload?: unknown }[] = [];
        if (schema) {
          const properties = Object.keys(schema.properties ?? {});
          attempts.push({ url, payload: {} }, { url, payload: [] });
          attempts.push({
            url,
            payload: Object.fromEntries(properties.map((name) => [name, 12.5])),
          });
          attempts.push({ url, payload: Object.fromEntries(properties.map((name) => [name, {}])) });
          attempts.push({
            url,
            payload: Object.fromEntries(properties.map((name) => [name, ['x']])),
          });
        }
        for (const parameter of operation.parameters ?? []) {
          if (parameter.in !== 'query') continue;
          for (const value of ['', 'zz-not-valid', '-1']) {
            attempts.push({ url: `${url}?${parameter.name}=${value}` });
          }
          attempts.push({ url: `${url}?${parameter.name}=a&${parameter.name}=b` });
        }
        for (const attempt of attempts) {
          const { status, body } = await send(method.toUpperCase(), attempt.url, attempt.payload);
          if (status !== 400 || body.code !== 'validation_failed') continue;
          for (const error of body.errors ?? []) {
            seen.push(error.message);
            expect(error.message, `${method.toUpperCase()} ${attempt.url}`).not.toMatch(zodWording);
          }
        }
      }
    }
    // The walk reached the validation of most routes.
    expect(seen.length).toBeGreaterThan(100);
  });
});

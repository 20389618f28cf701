import { DEAL_STAGE_VALUES, LIFECYCLE_VALUES, WEBHOOK_EVENT_KINDS } from '@followup/sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { useTestServer } from '../../test/support/server.js';
import { validationErrorMap, validationErrors } from '../plugins/validation-messages.js';
import { enumFilterParameter } from './enum-filter.js';

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies, read by the tests
type Json = any;

const lifecycle = z.object({
  lifecycle: enumFilterParameter({
    name: 'lifecycle',
    values: LIFECYCLE_VALUES,
    open: true,
    maxValues: 20,
  }),
});
const kind = z.object({
  kind: enumFilterParameter({
    name: 'kind',
    values: WEBHOOK_EVENT_KINDS,
    open: false,
    maxValues: 16,
  }),
});

function parse(schema: z.ZodType, query: unknown) {
  const result = schema.safeParse(query, { error: validationErrorMap });
  return result.success
    ? { ok: true as const, value: result.data as Json }
    : { ok: false as const, errors: validationErrors(result.error.issues, 'the query') };
}

/** A value as a query string gives it: mostly near the known values, in any case. */
const filterValue = (known: readonly string[]) =>
  fc.oneof(
    fc.constantFrom(...known),
    fc
      .tuple(fc.constantFrom(...known), fc.array(fc.boolean(), { minLength: 32, maxLength: 32 }))
      .map(([value, upper]) =>
        [...value]
          .map((char, at) => (upper[at] ? char.toUpperCase() : char.toLowerCase()))
          .join(''),
      ),
    fc.string({ minLength: 1, maxLength: 64, unit: 'grapheme' }),
  );

describe('enumFilterParameter', () => {
  it('open: takes any value but a known one in another case, which it refuses naming the spelling', () => {
    fc.assert(
      fc.property(
        fc.array(filterValue(LIFECYCLE_VALUES), { minLength: 1, maxLength: 5 }),
        (values) => {
          const result = parse(lifecycle, { lifecycle: values.length === 1 ? values[0] : values });
          const miscased = values.find(
            (value) =>
              !(LIFECYCLE_VALUES as readonly string[]).includes(value) &&
              LIFECYCLE_VALUES.some((known) => known.toLowerCase() === value.toLowerCase()),
          );
          if (miscased === undefined) {
            expect(result).toEqual({ ok: true, value: { lifecycle: values } });
            return;
          }
          expect(result.ok).toBe(false);
          const known = LIFECYCLE_VALUES.find(
            (value) => value.toLowerCase() === miscased.toLowerCase(),
          );
          expect(result.ok ? [] : result.errors).toContainEqual({
            path: 'lifecycle',
            message: `lifecycle must be written ${known}: values are case-sensitive (known values: ${LIFECYCLE_VALUES.join(', ')}; others are allowed)`,
          });
        },
      ),
    );
  });

  it('closed: takes its values exactly, and refuses any other naming them all', () => {
    fc.assert(
      fc.property(
        fc.array(filterValue(WEBHOOK_EVENT_KINDS), { minLength: 1, maxLength: 5 }),
        (values) => {
          const result = parse(kind, { kind: values.length === 1 ? values[0] : values });
          if (values.every((value) => (WEBHOOK_EVENT_KINDS as readonly string[]).includes(value))) {
            expect(result).toEqual({ ok: true, value: { kind: values } });
          } else {
            expect(result).toEqual({
              ok: false,
              errors: [
                {
                  path: 'kind',
                  message: `kind must be one of ${WEBHOOK_EVENT_KINDS.join(', ')} (case-sensitive)`,
                },
              ],
            });
          }
        },
      ),
    );
  });

  it('refuses more values than it takes, and an empty one', () => {
    expect(parse(lifecycle, { lifecycle: Array(21).fill('LEAD') })).toMatchObject({
      ok: false,
      errors: [{ path: 'lifecycle', message: 'lifecycle must have at most 20 items' }],
    });
    expect(parse(lifecycle, { lifecycle: '' })).toMatchObject({
      ok: false,
      errors: [{ path: 'lifecycle', message: 'lifecycle must not be empty' }],
    });
  });
});

describe('enumerated filters of the lists', () => {
  const server = useTestServer();

  async function call(method: 'GET' | 'POST', url: string, payload?: object) {
    const { token } = await server().tokenFor('ADMIN');
    const response = await server().app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload ? { payload } : {}),
    });
    return { status: response.statusCode, body: response.json() as Json };
  }

  it('lifecycle is case-sensitive: patient is a 400 naming the known values, never an empty page', async () => {
    for (const [firstName, value] of [
      ['Pat', 'PATIENT'],
      ['Al', 'ALUMNI'],
    ]) {
      expect(
        (await call('POST', '/api/contacts', { firstName, lastName: 'L', lifecycle: value }))
          .status,
      ).toBe(201);
    }
    const names = async (query: string) =>
      (await call('GET', `/api/contacts?${query}`)).body.contacts.map(
        (contact: Json) => contact.firstName,
      );
    expect(await names('lifecycle=PATIENT')).toEqual(['Pat']);
    // An open enumeration: a value the contract does not name is a filter like any other.
    expect(await names('lifecycle=ALUMNI')).toEqual(['Al']);
    for (const query of ['lifecycle=patient', 'lifecycle=ALUMNI&lifecycle=Patient']) {
      const refused = await call('GET', `/api/contacts?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body).toMatchObject({
        code: 'validation_failed',
        errors: [
          {
            path: 'lifecycle',
            message: expect.stringMatching(
              /^lifecycle must be written PATIENT: .*LEAD, PROSPECT, PATIENT, INACTIVE/,
            ),
          },
        ],
      });
    }
  });

  it('a case variant of a known value is refused when written too, so that no filter misses it', async () => {
    const refused = await call('POST', '/api/contacts', {
      firstName: 'Pat',
      lastName: 'L',
      lifecycle: 'patient',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([
      {
        path: 'lifecycle',
        message: expect.stringMatching(
          /^lifecycle must be written PATIENT: values are case-sensitive/,
        ),
      },
    ]);
    const { rows } = await server().database.query('SELECT id FROM contacts');
    expect(rows).toEqual([]);
  });

  it('stage is case-sensitive too', async () => {
    const refused = await call('GET', '/api/deals?stage=won');
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([
      {
        path: 'stage',
        message: `stage must be written WON: values are case-sensitive (known values: ${DEAL_STAGE_VALUES.join(', ')}; others are allowed)`,
      },
    ]);
    expect((await call('GET', '/api/deals?stage=WON')).status).toBe(200);
  });

  it('kind of the event feed is closed: another value is a 400 naming every kind', async () => {
    for (const query of ['kind=Contact.Created', 'kind=contact.created&kind=contact.merged']) {
      const refused = await call('GET', `/api/events?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.errors).toEqual([
        {
          path: 'kind',
          message: `kind must be one of ${WEBHOOK_EVENT_KINDS.join(', ')} (case-sensitive)`,
        },
      ]);
    }
    expect((await call('GET', '/api/events?kind=contact.created')).status).toBe(200);
  });

  it('OpenAPI shows a closed filter as an enum and says an open one takes other values', async () => {
    const document = (await server().app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const parameter = (path: string, name: string) =>
      document.paths[path].get.parameters.find((entry: Json) => entry.name === name);
    for (const [path, name, values] of [
      ['/api/contacts', 'lifecycle', LIFECYCLE_VALUES],
      ['/api/deals', 'stage', DEAL_STAGE_VALUES],
    ] as const) {
      const open = parameter(path, name);
      expect(open.description).toContain('An open enumeration');
      expect(open.description).toContain('case-sensitive');
      expect(JSON.stringify(open.schema)).not.toContain('"enum"');
      expect(open.schema.anyOf[0].examples).toEqual([...values]);
    }
    const closed = parameter('/api/events', 'kind');
    expect(closed.schema.anyOf[0].enum).toEqual([...WEBHOOK_EVENT_KINDS]);
    expect(closed.description).toContain('any other is refused');
    expect(parameter('/api/contacts', 'sort').schema.enum).toEqual([
      'createdAt',
      '-createdAt',
      'updatedAt',
      '-updatedAt',
    ]);
  });
});

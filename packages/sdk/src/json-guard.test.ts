import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import * as sdk from './index.js';
import { jsonGuard } from './json-guard.js';

// Every schema the client checks responses with: the resources, their list pages, counts, the
// inbox result, problem bodies and webhook events (the inputs are only ever sent, never read).
const responseSchemas: [string, z.ZodType][] = [];
// webhookEventSchema dispatches on the body's `event` in a transform, which the guard leaves to
// zod by design (it is not a response schema: webhooks.unwrap parses with it); each kind's own
// schema (contactCreatedEventSchema…, exported one by one) is a plain object the guard compiles,
// and is tested below like every other. eventListSchema (the pages of client.events.list) holds
// webhookEventSchema for its items, so zod checks those pages.
for (const [name, value] of Object.entries(sdk)) {
  if (
    value instanceof z.ZodType &&
    name !== 'webhookEventSchema' &&
    name !== 'eventListSchema' &&
    !/^(create|update)|InputSchema$/.test(name)
  ) {
    responseSchemas.push([name, value as z.ZodType]);
  }
}

// Any JSON value but one with an own `__proto__` key, which the guard leaves to zod (those are
// the mutations' business, below).
const jsonValue = fc.jsonValue().filter((value) => !JSON.stringify(value).includes('"__proto__"'));

/** Values a schema accepts, built from zod's public API (only what the response schemas use). */
function valid(schema: z.ZodType): fc.Arbitrary<unknown> {
  switch (schema.type) {
    case 'string': {
      const { pattern } = z.toJSONSchema(schema) as { pattern?: string };
      const { minLength, maxLength } = schema as z.ZodString;
      const min = minLength ?? 0;
      return pattern !== undefined
        ? fc.stringMatching(new RegExp(pattern))
        : fc.string({ minLength: min, maxLength: Math.min(maxLength ?? 40, min + 40) });
    }
    case 'number': {
      const { isInt, minValue } = schema as z.ZodNumber;
      // One above the bound, whether it is inclusive or not.
      return isInt
        ? fc.integer({ min: minValue === null ? -1e6 : Math.ceil(minValue) + 1 })
        : fc.double({ noNaN: true, noDefaultInfinity: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'unknown':
    case 'any':
      return jsonValue;
    case 'literal':
      return fc.constantFrom(...(schema as z.ZodLiteral).values);
    case 'enum':
      return fc.constantFrom(...(schema as z.ZodEnum).options);
    case 'optional':
    case 'nonoptional':
      return valid((schema as z.ZodOptional).unwrap() as z.ZodType);
    case 'nullable':
      return fc.oneof(fc.constant(null), valid((schema as z.ZodNullable).unwrap() as z.ZodType));
    case 'union':
      return valid((schema as z.ZodUnion).options[0] as z.ZodType);
    case 'array':
      return fc.array(valid((schema as z.ZodArray).element as z.ZodType), { maxLength: 4 });
    case 'record':
      return fc.dictionary(
        fc.string({ maxLength: 6 }),
        valid((schema as z.ZodRecord).valueType as z.ZodType),
        { maxKeys: 3 },
      );
    case 'object': {
      const object = schema as z.ZodObject;
      const shape = object.shape as Record<string, z.ZodType>;
      const required: string[] = [];
      for (const [key, field] of Object.entries(shape)) {
        if (field.type !== 'optional') required.push(key);
      }
      const known = fc.record(
        Object.fromEntries(Object.entries(shape).map(([key, field]) => [key, valid(field)])),
        { requiredKeys: required },
      );
      const loose = (object.def.catchall as z.ZodType | undefined)?.type === 'unknown';
      if (!loose) return known;
      // A newer service may add fields: a loose object keeps them.
      return fc
        .tuple(
          known,
          fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), jsonValue, { maxKeys: 2 }),
        )
        .map(([fields, extra]) => {
          const value: Record<string, unknown> = { ...fields };
          for (const [key, field] of Object.entries(extra)) {
            if (!(key in shape) && key !== '__proto__') value[key] = field;
          }
          return value;
        });
    }
    default:
      throw new Error(`no generator for ${schema.type}`);
  }
}

/**
 * A JSON value with one place changed (a value replaced, a key or element removed or added), or
 * with an own `__proto__` key in one of its objects, as only JSON.parse makes. The result is
 * always JSON.parse's output, like a response body.
 */
const PROTO_MARKER = 'proto-marker-5d1f0c9a';

function mutated(value: unknown): fc.Arbitrary<unknown> {
  const json = JSON.stringify(value);
  return fc
    .tuple(fc.nat(), fc.nat(3), fc.jsonValue({ maxDepth: 2 }))
    .map(([at, how, replacement]) => {
      const copy = JSON.parse(json) as unknown;
      const containers: (Record<string, unknown> | unknown[])[] = [];
      const visit = (node: unknown) => {
        if (typeof node !== 'object' || node === null) return;
        containers.push(node as Record<string, unknown>);
        for (const child of Object.values(node)) visit(child);
      };
      visit(copy);
      if (containers.length === 0) return replacement;
      const target = containers[at % containers.length] as Record<string, unknown> | unknown[];
      if (how === 3 && !Array.isArray(target)) {
        // Mark the key, then rename it in the text: JSON.parse makes it an own `__proto__` key.
        target[PROTO_MARKER] = replacement;
        return JSON.parse(JSON.stringify(copy).replace(`"${PROTO_MARKER}":`, '"__proto__":'));
      }
      if (Array.isArray(target)) {
        if (how === 0 && target.length > 0) target[at % target.length] = replacement;
        else if (how === 1 && target.length > 0) target.splice(at % target.length, 1);
        else target.push(replacement);
      } else {
        const keys = Object.keys(target);
        const key = keys.length === 0 ? 'extra' : (keys[at % keys.length] as string);
        if (how === 0) target[key] = replacement;
        else if (how === 1) delete target[key];
        else target[`${key}_new`] = replacement;
      }
      return JSON.parse(JSON.stringify(copy));
    });
}

describe('jsonGuard', () => {
  it('compiles every schema the client reads responses with', () => {
    expect(responseSchemas.length).toBeGreaterThanOrEqual(20);
    // The transform is left to zod: no guard, so unwrap never trusts one that cannot judge it.
    expect(jsonGuard(sdk.webhookEventSchema)).toBeUndefined();
    for (const [name, schema] of responseSchemas) {
      expect(jsonGuard(schema), name).toBeTypeOf('function');
    }
  });

  it.each(responseSchemas)('%s: valid values take the guard and zod agrees', (_name, schema) => {
    const guard = jsonGuard(schema) as (value: unknown) => boolean;
    fc.assert(
      fc.property(valid(schema), (value) => {
        const json = JSON.parse(JSON.stringify(value)) as unknown;
        expect(schema.safeParse(json).success, 'zod').toBe(true);
        expect(guard(json), 'guard').toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it.each(responseSchemas)(
    '%s: whatever the guard accepts, zod accepts and returns a copy of',
    (_name, schema) => {
      const guard = jsonGuard(schema) as (value: unknown) => boolean;
      const anyJson = fc.jsonValue({ maxDepth: 3 });
      const nearMiss = valid(schema).chain((value) => mutated(value));
      fc.assert(
        fc.property(fc.oneof(anyJson, nearMiss), (value) => {
          if (!guard(value)) return;
          const result = schema.safeParse(value);
          expect(result.success).toBe(true);
          expect(result.data).toStrictEqual(value);
        }),
        { numRuns: 300 },
      );
    },
  );

  it('refuses, for zod to decide, the cases where zod would not return a copy', () => {
    const contact = {
      id: 'con_1',
      firstName: 'Ada',
      lastName: 'Lovelace',
      lifecycle: 'LEAD',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00Z',
    };
    const guard = jsonGuard(sdk.contactSchema) as (value: unknown) => boolean;
    expect(guard(contact)).toBe(true);
    expect(guard({ ...contact, tier: 'gold' })).toBe(true); // loose: kept by zod as well
    // Not JSON, but zod keeps a present `undefined` as well.
    expect(guard({ ...contact, email: undefined })).toBe(true);
    expect(guard(JSON.parse(`{"__proto__":{},${JSON.stringify(contact).slice(1)}`))).toBe(false);
    expect(guard({ ...contact, createdAt: '2026-01-01 00:00:00' })).toBe(false);
    expect(guard({ ...contact, id: '' })).toBe(false);

    const stripped = z.object({ a: z.string() });
    expect(jsonGuard(stripped)?.({ a: 'x' })).toBe(true);
    expect(jsonGuard(stripped)?.({ a: 'x', b: 1 })).toBe(false); // zod would drop `b`
    const strict = z.strictObject({ a: z.string() });
    expect(jsonGuard(strict)?.({ a: 'x', b: 1 })).toBe(false);
    expect(z.number().safeParse(Number.POSITIVE_INFINITY).success).toBe(false);
    expect(jsonGuard(z.number())?.(Number.POSITIVE_INFINITY)).toBe(false);
    expect(jsonGuard(z.int())?.(1.5)).toBe(false);
    expect(jsonGuard(z.record(z.string(), z.number()))?.({ a: 1, b: 'x' })).toBe(false);
  });

  it('guards what zod itself checks: formats, lengths, patterns, bounds', () => {
    const when = jsonGuard(z.object({ when: z.iso.datetime() })) as (value: unknown) => boolean;
    expect(when({ when: '2026-01-01T00:00:00Z' })).toBe(true);
    expect(when({ when: '2026-02-30T00:00:00Z' })).toBe(false);
    const ids = jsonGuard(z.array(z.uuid()).max(2)) as (value: unknown) => boolean;
    expect(ids(['7d444840-9dc0-11d1-b245-5ffdce74fad2'])).toBe(true);
    expect(ids(['not-a-uuid'])).toBe(false);
    expect(ids(Array(3).fill('7d444840-9dc0-11d1-b245-5ffdce74fad2'))).toBe(false);
    const byKind = jsonGuard(z.record(z.enum(['a', 'b']), z.string())) as (v: unknown) => boolean;
    expect(byKind({ a: 'x', b: 'y' })).toBe(true);
    expect(byKind({ a: 'x' })).toBe(false);
    // A strip object nested in a list, in a record and behind optional and nullable.
    const nested = jsonGuard(
      z.looseObject({
        items: z.array(z.object({ id: z.string() })),
        byName: z.record(z.string(), z.object({ n: z.int() })).optional(),
        parent: z.object({ id: z.string() }).nullable(),
      }),
    ) as (value: unknown) => boolean;
    expect(nested({ items: [{ id: 'a' }], byName: { x: { n: 1 } }, parent: null })).toBe(true);
    expect(nested({ items: [{ id: 'a', extra: 1 }], parent: null })).toBe(false);
    expect(nested({ items: [], byName: { x: { n: 1, extra: 1 } }, parent: null })).toBe(false);
    expect(nested({ items: [], parent: { id: 'p', extra: 1 } })).toBe(false);
    expect(nested({ items: [], parent: null, extra: { __proto__: 1 } })).toBe(true);
    expect(nested(JSON.parse('{"items":[],"parent":null,"extra":{"__proto__":1}}'))).toBe(false);
  });

  it('leaves to zod every schema whose output may differ from its input', () => {
    const unsupported: z.ZodType[] = [
      z.string().trim(),
      z.string().toLowerCase(),
      z.string().transform((value) => value.length),
      z.string().default('x'),
      z.string().catch('x'),
      z.string().refine((value) => value !== 'x'),
      z.looseObject({ a: z.string() }).refine((value) => value.a !== 'x'),
      z.coerce.number(),
      z.coerce.string(),
      z.date(),
      z.string().readonly(),
      z.object({ when: z.string().pipe(z.iso.datetime()) }),
      z.array(z.string().overwrite((value) => value.normalize())),
      z.record(z.string().trim(), z.string()),
      z.union([z.string(), z.string().transform((value) => value)]),
      // zod returns the first option that accepts: the first would drop `b` of `{a, b}`.
      z.union([z.object({ a: z.string() }), z.looseObject({ a: z.string() })]),
    ];
    for (const schema of unsupported) expect(jsonGuard(schema)).toBeUndefined();
  });

  it("uses zod's public API only: no code of its own compiled, no zod internals read", () => {
    const source = readFileSync(new URL('./json-guard.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/\bnew Function\b|\bFunction\(|\beval\(/);
    expect(source).not.toMatch(/_zod\b|\._def\b|\.bag\b/);
  });

  describe('where the runtime forbids compiling code', () => {
    afterEach(() => {
      vi.unstubAllGlobals();
      z.config({ jitless: false });
    });

    it('still guards, with zod checking every value itself', () => {
      // As in a Worker or under a Content-Security-Policy without 'unsafe-eval': zod finds out
      // on its own at start (jitless here, since it already looked), and `new Function` throws.
      z.config({ jitless: true });
      vi.stubGlobal('Function', function forbidden() {
        throw new EvalError('Code generation from strings disallowed for this context');
      });
      const schema = z.looseObject({ contacts: z.array(sdk.contactSchema) });
      const guard = jsonGuard(schema) as (value: unknown) => boolean;
      const contact = {
        id: 'con_1',
        firstName: 'Ada',
        lastName: 'Lovelace',
        lifecycle: 'LEAD',
        createdAt: '2026-01-01T00:00:00.000Z',
        updatedAt: '2026-01-01T00:00:00Z',
      };
      expect(guard({ contacts: [contact] })).toBe(true);
      expect(guard({ contacts: [{ ...contact, id: '' }] })).toBe(false);
      expect(guard({ contacts: [{ ...contact, tier: 'gold' }] })).toBe(true);
    });
  });

  describe('on zod older than 4.6, which has no z.validate', () => {
    afterEach(() => {
      vi.doUnmock('zod');
      vi.resetModules();
    });

    it('returns no guard, so zod parses every value', async () => {
      vi.resetModules();
      vi.doMock('zod', async (importOriginal) => {
        const actual = await importOriginal<typeof import('zod')>();
        return { ...actual, z: { ...actual.z, validate: undefined } };
      });
      const fresh = await import('./json-guard.js');
      expect(fresh.jsonGuard(z.looseObject({ a: z.string() }))).toBeUndefined();
    });
  });
});

import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import * as sdk from '../index.js';
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

interface Def {
  type: string;
  checks?: { _zod: { def: Record<string, unknown> } }[];
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  innerType?: z.ZodType;
  options?: z.ZodType[];
  valueType?: z.ZodType;
  values?: unknown[];
  entries?: Record<string, unknown>;
}
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Values a schema accepts, built from its definition (only what the response schemas use). */
function valid(schema: z.ZodType): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  const checks = (def.checks ?? []).map((check) => check._zod.def);
  switch (def.type) {
    case 'string': {
      const pattern = checks.find((check) => check.format === 'regex')?.pattern;
      const min = Number(checks.find((check) => check.check === 'min_length')?.minimum ?? 0);
      const max = Number(checks.find((check) => check.check === 'max_length')?.maximum ?? 40);
      return pattern instanceof RegExp
        ? fc.stringMatching(pattern)
        : fc.string({ minLength: min, maxLength: Math.min(max, min + 40) });
    }
    case 'number':
      return checks.some((check) => check.format === 'safeint')
        ? fc.integer({ min: checks.some((check) => check.check === 'greater_than') ? 1 : -1e6 })
        : fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'unknown':
    case 'any':
      return fc.jsonValue();
    case 'literal':
      return fc.constantFrom(...(def.values ?? []));
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries ?? {}));
    case 'optional':
    case 'nonoptional':
      return valid(def.innerType as z.ZodType);
    case 'nullable':
      return fc.oneof(fc.constant(null), valid(def.innerType as z.ZodType));
    case 'union':
      return valid((def.options as z.ZodType[])[0] as z.ZodType);
    case 'array':
      return fc.array(valid(def.element as z.ZodType), { maxLength: 4 });
    case 'record':
      return fc.dictionary(fc.string({ maxLength: 6 }), valid(def.valueType as z.ZodType), {
        maxKeys: 3,
      });
    case 'object': {
      const shape = def.shape ?? {};
      const required: string[] = [];
      for (const [key, field] of Object.entries(shape)) {
        if (defOf(field).type !== 'optional') required.push(key);
      }
      const known = fc.record(
        Object.fromEntries(Object.entries(shape).map(([key, field]) => [key, valid(field)])),
        { requiredKeys: required },
      );
      const loose = def.catchall !== undefined && defOf(def.catchall).type === 'unknown';
      if (!loose) return known;
      // A newer service may add fields: a loose object keeps them.
      return fc
        .tuple(
          known,
          fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.jsonValue(), { maxKeys: 2 }),
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
      throw new Error(`no generator for ${def.type}`);
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
        expect(schema.safeParse(json).success).toBe(true);
        expect(guard(json)).toBe(true);
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
    expect(guard({ ...contact, email: undefined })).toBe(false); // not JSON
    expect(guard(JSON.parse(`{"__proto__":{},${JSON.stringify(contact).slice(1)}`))).toBe(false);
    expect(guard({ ...contact, createdAt: '2026-01-01 00:00:00' })).toBe(false);
    expect(guard({ ...contact, id: '' })).toBe(false);

    const stripped = z.object({ a: z.string() });
    expect(jsonGuard(stripped)?.({ a: 'x' })).toBe(true);
    expect(jsonGuard(stripped)?.({ a: 'x', b: 1 })).toBe(false); // zod would drop `b`
    const strict = z.strictObject({ a: z.string() });
    expect(jsonGuard(strict)?.({ a: 'x', b: 1 })).toBe(false);
    const union = z.union([z.object({ a: z.string() }), z.looseObject({ a: z.string() })]);
    expect(jsonGuard(union)?.({ a: 'x', b: 1 })).toBe(false); // zod returns the first option's copy
    expect(z.number().safeParse(Number.POSITIVE_INFINITY).success).toBe(false);
    expect(jsonGuard(z.number())?.(Number.POSITIVE_INFINITY)).toBe(false);
    expect(jsonGuard(z.int())?.(1.5)).toBe(false);
    expect(jsonGuard(z.record(z.string(), z.number()))?.({ a: 1, b: 'x' })).toBe(false);
  });

  it('leaves to zod every schema it does not fully understand', () => {
    const unsupported: z.ZodType[] = [
      z.email(),
      z.string().trim(),
      z.string().transform((value) => value.length),
      z.string().default('x'),
      z.string().refine((value) => value !== 'x'),
      z.coerce.number(),
      z.date(),
      z.object({ when: z.iso.datetime() }),
      z.array(z.string().uuid()),
      z.record(z.enum(['a', 'b']), z.string()),
      z.union([z.string(), z.string().transform((value) => value)]),
    ];
    for (const schema of unsupported) expect(jsonGuard(schema)).toBeUndefined();
  });

  describe('where the runtime forbids compiling code', () => {
    afterEach(() => {
      vi.unstubAllGlobals();
      vi.resetModules();
    });

    it('returns no guard, so zod checks every response', async () => {
      vi.resetModules();
      vi.stubGlobal('Function', () => {
        throw new EvalError('Code generation from strings disallowed for this context');
      });
      const fresh = await import('./json-guard.js');
      expect(fresh.jsonGuard(sdk.contactListSchema)).toBeUndefined();
    });
  });
});

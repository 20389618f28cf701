import { z } from 'zod';

/**
 * A predicate over a parsed JSON value. When it returns `true`, the zod schema it was made from
 * accepts the value and its output is a deep copy of it, so the value can be used as is; `false`
 * says nothing (run the schema to find out, and to get its issues).
 */
export type JsonGuard = (value: unknown) => boolean;

// zod 4.6 added `z.validate` (a boolean answer that builds no output) and 4.5 `z.compile`; the
// peer range still admits older 4.x releases, on which there is no guard and zod parses.
const { compile, validate } = z as Partial<Pick<typeof z, 'compile' | 'validate'>>;

const guards = new WeakMap<z.ZodType, JsonGuard | null>();

/**
 * Makes a {@link JsonGuard} for a zod schema, on zod's public API only: `z.validate` over the
 * schema compiled by `z.compile`, which answers without building zod's output (a copy of every
 * object and array) or its issue list, for the common case of a valid value. Made once per
 * schema and kept; the schema is compiled when the guard first checks a value.
 *
 * zod's output is the value itself only for schemas that change nothing, so the guard is made
 * from a copy of the schema in which every object that would drop unknown keys (`z.object`)
 * refuses them instead: a value with such a key is left to zod, as is a value with an own
 * `__proto__` key anywhere (which zod does not copy). Returns `undefined` for a schema
 * whose output can differ from its input in any other way (a transform, a default, a coercion, a
 * `trim()`, a refinement, a union of objects that drop keys…) and on zod older than 4.6: zod
 * then checks every value, as it would without a guard. Where the runtime forbids compiling code
 * (Cloudflare Workers, a page whose Content-Security-Policy has no `unsafe-eval`), `z.compile`
 * leaves the schema as it is and the guard runs zod's own checks, still without building a copy.
 *
 * @example
 * ```ts
 * import { type Contact, contactSchema, jsonGuard } from '@followup/sdk';
 *
 * const guard = jsonGuard(contactSchema);
 * const body: unknown = JSON.parse(text);
 * // Valid: the parsed body as it is; otherwise zod parses it, and throws with the issues.
 * const contact: Contact = guard?.(body) === true ? (body as Contact) : contactSchema.parse(body);
 * ```
 */
export function jsonGuard(schema: z.ZodType): JsonGuard | undefined {
  let guard = guards.get(schema);
  if (guard === undefined) {
    guard = makeGuard(schema);
    guards.set(schema, guard);
  }
  return guard ?? undefined;
}

function makeGuard(schema: z.ZodType): JsonGuard | null {
  if (compile === undefined || validate === undefined) return null;
  const copying = copyingSchema(schema);
  if (copying === undefined) return null;
  // Compiled at the first check, not here: a server makes a guard for every response schema of
  // every route as it starts, and compiling them all there cost it about 100 ms, most of them
  // for answers it may never send.
  let compiled: z.ZodType | undefined;
  return (value) => {
    compiled ??= compile(copying);
    return validate(compiled, value) && !hasOwnProtoKey(value);
  };
}

// zod never copies an own `__proto__` key of an object it checks into its output (JSON.parse makes
// one from `{"__proto__": …}`), so a value holding one is left to zod: anywhere in the value, for
// the rare key is not worth a walk that follows the schema.
function hasOwnProtoKey(value: unknown): boolean {
  return typeof value === 'object' && value !== null && holdsOwnProtoKey(value);
}

// Only objects are visited: a call per string or number cost a third more on a page of contacts.
function holdsOwnProtoKey(value: object): boolean {
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      if (typeof item === 'object' && item !== null && holdsOwnProtoKey(item)) return true;
    }
    return false;
  }
  if (Object.hasOwn(value, '__proto__')) return true;
  for (const key in value) {
    const child: unknown = (value as Record<string, unknown>)[key];
    if (typeof child === 'object' && child !== null && holdsOwnProtoKey(child)) return true;
  }
  return false;
}

// The checks that only judge a value: lengths, patterns and other string formats, bounds, number
// formats. Anything else (an overwrite such as `trim()`, a refinement, a custom check) may change
// the value or depend on more than it, and leaves the schema to zod.
const judgingChecks = [
  z.core.$ZodCheckMinLength,
  z.core.$ZodCheckMaxLength,
  z.core.$ZodCheckLengthEquals,
  z.core.$ZodCheckStringFormat,
  z.core.$ZodCheckLessThan,
  z.core.$ZodCheckGreaterThan,
  z.core.$ZodCheckMultipleOf,
  z.core.$ZodCheckNumberFormat,
];

/** The checks of a schema (`def.checks`), when every one of them only judges the value. */
function judgingOnly(schema: z.ZodType): boolean {
  const checks: readonly unknown[] = schema.def.checks ?? [];
  return checks.every((check) => judgingChecks.some((kind) => check instanceof kind));
}

/**
 * A schema that accepts a value only where `schema` accepts it and returns a deep copy of it:
 * `schema` itself when that is already so, a copy with strict objects for the objects that would
 * drop unknown keys, or `undefined` when no such schema is known. Read through zod's public
 * classic API: `type`, `def`, `shape`, `element`, `unwrap()`, `options`, `keyType`, `valueType`,
 * and `z.core`'s check classes.
 */
function copyingSchema(schema: z.ZodType): z.ZodType | undefined {
  if (!judgingOnly(schema)) return undefined;
  switch (schema.type) {
    case 'string':
    case 'number':
    case 'boolean':
      return (schema.def as { coerce?: boolean }).coerce === true ? undefined : schema;
    case 'null':
    case 'literal':
    case 'enum':
    case 'unknown':
    case 'any':
      return schema;
    case 'optional':
    case 'nullable':
    case 'nonoptional': {
      const inner = (schema as z.ZodOptional | z.ZodNullable | z.ZodNonOptional).unwrap();
      const copying = copyingSchema(inner as z.ZodType);
      if (copying === undefined || copying === inner) return copying && schema;
      if (schema.type === 'optional') return copying.optional();
      return schema.type === 'nullable' ? copying.nullable() : copying.nonoptional();
    }
    case 'array': {
      const element = (schema as z.ZodArray).element as z.ZodType;
      const copying = copyingSchema(element);
      if (copying === undefined || copying === element) return copying && schema;
      return z
        .array(copying)
        .check(...((schema.def.checks ?? []) as z.core.$ZodCheck<unknown[]>[]));
    }
    case 'object':
      return copyingObject(schema as z.ZodObject);
    case 'union': {
      // zod returns the first option that accepts a value; every option must already return a
      // copy, for a stricter option would let a later one accept what the first would have
      // stripped.
      const options = (schema as z.ZodUnion).options as readonly z.ZodType[];
      return options.every((option) => copyingSchema(option) === option) ? schema : undefined;
    }
    case 'record': {
      const record = schema as z.ZodRecord;
      const keyType = record.keyType as z.ZodType;
      const valueType = record.valueType as z.ZodType;
      if (copyingSchema(keyType) !== keyType) return undefined;
      const copying = copyingSchema(valueType);
      if (copying === undefined || copying === valueType) return copying && schema;
      const { mode, partial } = schema.def as { mode?: string; partial?: boolean };
      if ((mode !== undefined && mode !== 'strict') || partial === true) return undefined;
      return z.record(keyType as z.ZodString, copying);
    }
    default:
      return undefined;
  }
}

function copyingObject(schema: z.ZodObject): z.ZodType | undefined {
  const shape = schema.shape as Record<string, z.ZodType>;
  if (Object.hasOwn(shape, '__proto__')) return undefined;
  const catchall = schema.def.catchall as z.ZodType | undefined;
  const catchallType = catchall?.type;
  if (catchallType !== undefined && !['unknown', 'any', 'never'].includes(catchallType)) {
    return undefined;
  }
  let changed = catchall === undefined;
  const copyingShape: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(shape)) {
    const copying = copyingSchema(field);
    if (copying === undefined) return undefined;
    if (copying !== field) changed = true;
    copyingShape[key] = copying;
  }
  if (!changed) return schema;
  // Without a catchall zod drops unknown keys: refuse them instead, for zod to decide.
  return catchallType === 'unknown' || catchallType === 'any'
    ? z.looseObject(copyingShape)
    : z.strictObject(copyingShape);
}

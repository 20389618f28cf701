import type { z } from 'zod';

/**
 * A predicate over a parsed JSON value. When it returns `true`, the zod schema it was compiled
 * from accepts the value and its output is a deep copy of it, so the value can be used as is;
 * `false` says nothing (run the schema to find out, and to get its issues).
 */
export type JsonGuard = (value: unknown) => boolean;

// The parts of zod's schema and check definitions that the compiler reads. zod 4 exposes them on
// `schema._zod.def`; anything this file does not recognise makes the whole schema unsupported.
interface Def {
  readonly type: string;
  /** Set when the schema is itself a check, e.g. `z.int()`. */
  readonly check?: string;
  readonly coerce?: boolean;
  readonly format?: string;
  readonly checks?: readonly { readonly _zod: { readonly def: CheckDef } }[];
  readonly shape?: Readonly<Record<string, z.ZodType>>;
  readonly catchall?: z.ZodType;
  readonly element?: z.ZodType;
  readonly innerType?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly keyType?: z.ZodType;
  readonly valueType?: z.ZodType;
  readonly mode?: string;
  readonly values?: readonly unknown[];
  readonly entries?: Readonly<Record<string, unknown>>;
}

interface CheckDef {
  readonly check: string;
  readonly minimum?: unknown;
  readonly maximum?: unknown;
  readonly length?: unknown;
  readonly format?: string;
  readonly pattern?: unknown;
  readonly value?: unknown;
  readonly inclusive?: boolean;
}

/** Thrown inside the compiler when a schema uses something it does not know. */
class Unsupported extends Error {}

const cache = new WeakMap<z.ZodType, JsonGuard | null>();
let evalAllowed: boolean | undefined;

/**
 * Compiles a zod schema into a {@link JsonGuard}: one function that checks the same rules as
 * straight-line code (as zod's own object compiler does), without building zod's output (a copy
 * of every object and array) or its issue list, for the common case of a valid response.
 *
 * Returns `undefined` when the schema uses anything the compiler does not know (a transform, a
 * default, a refinement, a format other than a regular expression…), or when the runtime forbids
 * compiling code (Cloudflare Workers, a page whose Content-Security-Policy has no
 * `unsafe-eval`): zod then checks every response, as it would without this.
 *
 * Validity stays zod's to decide: the guard only answers "valid, and zod would return a copy" or
 * "ask zod". A response it refuses goes through `safeParse`, which reports the issues (or accepts
 * a value the guard was too cautious for). A property test holds every schema the client uses to
 * this contract. The generated code holds no value from the schema: keys are JSON string
 * literals, and patterns, bounds and sets are passed in as references.
 */
export function jsonGuard(schema: z.ZodType): JsonGuard | undefined {
  let guard = cache.get(schema);
  if (guard === undefined) {
    guard = evalIsAllowed() ? compileGuard(schema) : null;
    cache.set(schema, guard);
  }
  return guard ?? undefined;
}

function evalIsAllowed(): boolean {
  if (evalAllowed === undefined) {
    try {
      evalAllowed = new Function('return true')() === true;
    } catch {
      evalAllowed = false;
    }
  }
  return evalAllowed;
}

function compileGuard(schema: z.ZodType): JsonGuard | null {
  const compiler = new Compiler();
  let body: string;
  try {
    body = compiler.emit(schema, 'v0');
  } catch (error) {
    if (error instanceof Unsupported) return null;
    throw error;
  }
  const factory = new Function(
    'refs',
    `'use strict';\nreturn function guard(v0) {\n${body}return true;\n};`,
  );
  return factory(compiler.refs) as JsonGuard;
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

/**
 * The checks zod runs for a schema: those in `checks`, and the schema itself when it is also a
 * check (`z.int()` is a number schema that is its own `number_format` check).
 */
function checksOf(def: Def): readonly CheckDef[] {
  // A check's `when` only ever skips it (zod gives its length checks one), so applying every
  // check regardless can make the guard stricter than zod, never looser.
  const checks = (def.checks ?? []).map((check) => check._zod.def);
  return def.check === undefined ? checks : [def as CheckDef, ...checks];
}

function finite(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Unsupported();
  return value;
}

class Compiler {
  /** Values the generated code reads as `refs[i]`: patterns, bounds and sets. */
  readonly refs: unknown[] = [];
  #names = 0;

  #ref(value: unknown): string {
    this.refs.push(value);
    return `refs[${this.refs.length - 1}]`;
  }

  #name(): string {
    this.#names++;
    return `v${this.#names}`;
  }

  /** Statements that `return false` unless the value in variable `v` passes `schema`. */
  emit(schema: z.ZodType, v: string): string {
    const def = defOf(schema);
    if (def.coerce === true) throw new Unsupported();
    switch (def.type) {
      case 'string':
        return this.#string(def, v);
      case 'number':
        return this.#number(def, v);
      case 'boolean':
        return `${this.#noChecks(def)}if (typeof ${v} !== 'boolean') return false;\n`;
      case 'null':
        return `${this.#noChecks(def)}if (${v} !== null) return false;\n`;
      case 'unknown':
      case 'any':
        return this.#noChecks(def);
      case 'literal':
        return `${this.#noChecks(def)}if (!${this.#ref(new Set(def.values))}.has(${v})) return false;\n`;
      case 'enum': {
        const values = new Set(Object.values(def.entries ?? {}));
        return `${this.#noChecks(def)}if (!${this.#ref(values)}.has(${v})) return false;\n`;
      }
      case 'optional':
        return `${this.#noChecks(def)}if (${v} !== undefined) {\n${this.emit(this.#inner(def), v)}}\n`;
      case 'nullable':
        return `${this.#noChecks(def)}if (${v} !== null) {\n${this.emit(this.#inner(def), v)}}\n`;
      case 'nonoptional':
        return `${this.#noChecks(def)}if (${v} === undefined) return false;\n${this.emit(this.#inner(def), v)}`;
      case 'union':
        return this.#union(def, v);
      case 'array':
        return this.#array(def, v);
      case 'object':
        return this.#object(def, v);
      case 'record':
        return this.#record(def, v);
      default:
        throw new Unsupported();
    }
  }

  #noChecks(def: Def): string {
    if (checksOf(def).length > 0) throw new Unsupported();
    return '';
  }

  #inner(def: Def): z.ZodType {
    if (def.innerType === undefined) throw new Unsupported();
    return def.innerType;
  }

  /** The length rule zod applies to strings and arrays, or undefined for any other check. */
  #length(check: CheckDef, v: string): string | undefined {
    if (check.check === 'min_length')
      return `if (${v}.length < ${finite(check.minimum)}) return false;\n`;
    if (check.check === 'max_length')
      return `if (${v}.length > ${finite(check.maximum)}) return false;\n`;
    if (check.check === 'length_equals') {
      return `if (${v}.length !== ${finite(check.length)}) return false;\n`;
    }
    return undefined;
  }

  #string(def: Def, v: string): string {
    if (def.format !== undefined) throw new Unsupported();
    let code = `if (typeof ${v} !== 'string') return false;\n`;
    for (const check of checksOf(def)) {
      const length = this.#length(check, v);
      if (length !== undefined) code += length;
      else if (
        check.check === 'string_format' &&
        check.format === 'regex' &&
        check.pattern instanceof RegExp
      ) {
        const pattern = this.#ref(check.pattern);
        // Only a global or sticky pattern starts where the last match ended (zod resets it too).
        if (check.pattern.global || check.pattern.sticky) code += `${pattern}.lastIndex = 0;\n`;
        code += `if (!${pattern}.test(${v})) return false;\n`;
      } else throw new Unsupported();
    }
    return code;
  }

  #number(def: Def, v: string): string {
    let code = `if (typeof ${v} !== 'number' || !Number.isFinite(${v})) return false;\n`;
    for (const check of checksOf(def)) {
      if (check.check === 'number_format' && check.format === 'safeint') {
        code += `if (!Number.isSafeInteger(${v})) return false;\n`;
      } else if (check.check === 'greater_than') {
        code += `if (!(${v} ${check.inclusive === true ? '>=' : '>'} ${finite(check.value)})) return false;\n`;
      } else if (check.check === 'less_than') {
        code += `if (!(${v} ${check.inclusive === true ? '<=' : '<'} ${finite(check.value)})) return false;\n`;
      } else throw new Unsupported();
    }
    return code;
  }

  #union(def: Def, v: string): string {
    this.#noChecks(def);
    const options = def.options ?? [];
    const first = options[0];
    if (first === undefined) throw new Unsupported();
    // Every option must be understood, though only the first is checked: zod returns the first
    // option that accepts the value, and only for the first is its output known to be a copy.
    for (const option of options.slice(1)) this.emit(option, this.#name());
    return this.emit(first, v);
  }

  #array(def: Def, v: string): string {
    if (def.element === undefined) throw new Unsupported();
    let code = `if (!Array.isArray(${v})) return false;\n`;
    for (const check of checksOf(def)) {
      const length = this.#length(check, v);
      if (length === undefined) throw new Unsupported();
      code += length;
    }
    const index = this.#name();
    const element = this.#name();
    code += `for (let ${index} = 0; ${index} < ${v}.length; ${index}++) {\nconst ${element} = ${v}[${index}];\n`;
    code += `${this.emit(def.element, element)}}\n`;
    return code;
  }

  #object(def: Def, v: string): string {
    this.#noChecks(def);
    if (def.shape === undefined) throw new Unsupported();
    const keys = Object.keys(def.shape);
    if (keys.includes('__proto__')) throw new Unsupported();
    // Without a catchall zod drops unknown keys, and with `never` it refuses them: either way its
    // output is a copy only when there are none. With `unknown` it keeps them all.
    let keepsUnknownKeys = false;
    if (def.catchall !== undefined) {
      const type = defOf(def.catchall).type;
      if (type === 'unknown' || type === 'any') keepsUnknownKeys = true;
      else if (type !== 'never') throw new Unsupported();
    }
    let code = `if (typeof ${v} !== 'object' || ${v} === null || Array.isArray(${v})) return false;\n`;
    for (const key of keys) {
      const field = def.shape[key] as z.ZodType;
      const name = this.#name();
      const literal = JSON.stringify(key);
      code += `const ${name} = ${v}[${literal}];\n`;
      if (defOf(field).type === 'optional') {
        this.#noChecks(defOf(field));
        // Absent is fine; present but undefined is not JSON: ask zod.
        code += `if (${name} === undefined) {\nif (${literal} in ${v}) return false;\n} else {\n`;
        code += `${this.emit(this.#inner(defOf(field)), name)}}\n`;
      } else {
        code += `if (${name} === undefined) return false;\n${this.emit(field, name)}`;
      }
    }
    // zod never copies an own `__proto__` key (JSON.parse makes one from `{"__proto__": …}`).
    code += `if (Object.hasOwn(${v}, '__proto__')) return false;\n`;
    if (!keepsUnknownKeys) {
      const known = this.#ref(new Set(keys));
      const key = this.#name();
      code += `for (const ${key} in ${v}) if (!${known}.has(${key})) return false;\n`;
    }
    return code;
  }

  #record(def: Def, v: string): string {
    this.#noChecks(def);
    if (def.keyType === undefined || def.valueType === undefined) throw new Unsupported();
    const keyDef = defOf(def.keyType);
    // Only the plain `z.record(z.string(), …)`: keys with rules, enums or formats go to zod.
    if (
      keyDef.type !== 'string' ||
      keyDef.format !== undefined ||
      checksOf(keyDef).length > 0 ||
      (def.mode !== undefined && def.mode !== 'strict')
    ) {
      throw new Unsupported();
    }
    const prototype = this.#name();
    const key = this.#name();
    const value = this.#name();
    let code = `if (typeof ${v} !== 'object' || ${v} === null || Array.isArray(${v})) return false;\n`;
    code += `const ${prototype} = Object.getPrototypeOf(${v});\n`;
    code += `if (${prototype} !== Object.prototype && ${prototype} !== null) return false;\n`;
    code += `if (Object.hasOwn(${v}, '__proto__')) return false;\n`;
    code += `for (const ${key} in ${v}) {\nconst ${value} = ${v}[${key}];\n`;
    code += `${this.emit(def.valueType, value)}}\n`;
    return code;
  }
}

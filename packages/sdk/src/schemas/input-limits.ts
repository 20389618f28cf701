import { z } from 'zod';
import { INPUT_LIMITS } from '../wire/limits.js';

/** The message of a string that PostgreSQL cannot store or that is not well-formed UTF-16. */
const unstorableText = 'must not contain NUL characters (\\u0000) or unpaired surrogates';

// An unpaired surrogate: a high one not followed by a low one, or a low one not preceded by a
// high one. Written without a quantifier, so it runs in linear time on any length.
const unpairedSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Whether a string can be stored and sent back exactly: it has no NUL character (PostgreSQL's
 * text cannot hold one) and no unpaired surrogate (which UTF-8 cannot encode, so it would come
 * back as U+FFFD).
 *
 * @example
 * ```ts
 * isStorableText('Ada'); // true
 * isStorableText('a\u0000b'); // false
 * isStorableText('\uD800'); // false
 * ```
 */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && !unpairedSurrogate.test(value);
}

/**
 * A string schema for text a request writes: `min` to `max` characters (code points), storable
 * as it is (see {@link isStorableText}).
 *
 * @example
 * ```ts
 * const nameSchema = boundedText({ min: 1, max: INPUT_LIMITS.name });
 * nameSchema.safeParse('a\u0000b').success; // false
 * ```
 */
export function boundedText(options: { min?: number; max: number }): z.ZodString {
  const schema = z.string().max(options.max);
  return (options.min === undefined ? schema : schema.min(options.min)).refine(isStorableText, {
    message: unstorableText,
    abort: true,
  });
}

type JsonPath = (string | number)[];

/** Whether a string has more than `max` code points (counted only when its length says it may). */
function longerThan(value: string, max: number): boolean {
  if (value.length <= max) return false;
  let points = 0;
  for (let index = 0; index < value.length; index++) {
    const unit = value.charCodeAt(index);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < value.length) {
      const next = value.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index++;
    }
    if (++points > max) return true;
  }
  return false;
}

/** @internal Whether a field name a caller adds is storable and at most `jsonString` long. */
export function isStorableFieldName(key: string): boolean {
  return !longerThan(key, INPUT_LIMITS.jsonString) && isStorableText(key);
}

/** @internal The message of a field name that is too long or not storable text. */
export const unstorableFieldName = `is not a storable field name (at most ${INPUT_LIMITS.jsonString} characters, ${unstorableText.replace('must not contain', 'without')})`;

/**
 * Checks a value that should be plain JSON nested at most {@link INPUT_LIMITS.jsonDepth} deep,
 * without recursion (a value nested a hundred thousand deep must not exhaust the stack): every
 * string and field name storable and at most `jsonString` long, every array and object at most
 * `jsonItems` entries. Reports the first problems found, at most ten, each with its path.
 */
function checkJsonValue(root: unknown, report: (path: JsonPath, message: string) => void): void {
  const pending: { value: unknown; path: JsonPath; depth: number }[] = [
    { value: root, path: [], depth: 1 },
  ];
  let reported = 0;
  const fail = (path: JsonPath, message: string) => {
    reported++;
    report(path, message);
  };
  while (pending.length > 0 && reported < 10) {
    const { value, path, depth } = pending.pop() as (typeof pending)[number];
    if (value === null || typeof value === 'boolean') continue;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) fail(path, 'must be a finite number');
      continue;
    }
    if (typeof value === 'string') {
      if (longerThan(value, INPUT_LIMITS.jsonString)) {
        fail(path, `must be at most ${INPUT_LIMITS.jsonString} characters`);
      } else if (!isStorableText(value)) fail(path, unstorableText);
      continue;
    }
    if (typeof value !== 'object') {
      fail(path, 'must be a JSON value');
      continue;
    }
    if (depth > INPUT_LIMITS.jsonDepth) {
      fail(path, `must be nested at most ${INPUT_LIMITS.jsonDepth} deep`);
      continue;
    }
    if (Array.isArray(value)) {
      if (value.length > INPUT_LIMITS.jsonItems) {
        fail(path, `must have at most ${INPUT_LIMITS.jsonItems} items`);
        continue;
      }
      value.forEach((item, index) => {
        pending.push({ value: item, path: [...path, index], depth: depth + 1 });
      });
      continue;
    }
    const keys = Object.keys(value);
    if (keys.length > INPUT_LIMITS.jsonItems) {
      fail(path, `must have at most ${INPUT_LIMITS.jsonItems} fields`);
      continue;
    }
    for (const key of keys) {
      if (!isStorableFieldName(key)) {
        fail([...path, key], unstorableFieldName);
        continue;
      }
      pending.push({
        value: (value as Record<string, unknown>)[key],
        path: [...path, key],
        depth: depth + 1,
      });
    }
  }
}

/**
 * A schema for any JSON value a caller may add to a record (a sequence step's extra fields),
 * bounded: nested at most {@link INPUT_LIMITS.jsonDepth} deep, arrays and objects of at most
 * `jsonItems` entries, storable strings of at most `jsonString` characters.
 *
 * @example
 * ```ts
 * boundedJson().safeParse({ channel: 'email', tags: ['a', 'b'] }).success; // true
 * ```
 */
export function boundedJson(): z.ZodType<unknown> {
  return z
    .unknown()
    .superRefine((value, context) => {
      checkJsonValue(value, (path, message) => {
        context.addIssue({ code: 'custom', path, message });
      });
    })
    .meta({
      description:
        `Any JSON value, nested at most ${INPUT_LIMITS.jsonDepth} deep, with at most ` +
        `${INPUT_LIMITS.jsonItems} items in an array or fields in an object, and strings of at ` +
        `most ${INPUT_LIMITS.jsonString} characters without NUL or unpaired surrogates.`,
    });
}

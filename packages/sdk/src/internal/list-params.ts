import { ConfigurationError } from '../follow-up-error.js';
import { LIST_LIMITS } from '../wire/limits.js';
import { LIST_SORT_VALUES } from '../wire/list-sorts.js';

const { maxLimit: MAX_LIMIT, defaultLimit: DEFAULT_LIMIT } = LIST_LIMITS;

/** Checks a `limit`: a whole number from 1 to 200, refused before any request. */
export function checkLimit(limit: unknown): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new ConfigurationError({
      message: `limit must be a whole number from 1 to ${MAX_LIMIT}; got ${typeof limit === 'number' ? limit : typeof limit}.`,
    });
  }
  return limit;
}

/** Checks an `offset`: a whole number, 0 or more. */
export function checkOffset(offset: unknown): number {
  if (offset === undefined) return 0;
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) {
    throw new ConfigurationError({
      message: `offset must be a whole number, 0 or more; got ${typeof offset === 'number' ? offset : typeof offset}.`,
    });
  }
  return offset;
}

/** Checks a `cursor`: a non-empty string, as the previous page's `nextCursor` was. */
export function checkCursor(cursor: unknown): string | undefined {
  if (cursor === undefined) return undefined;
  if (typeof cursor !== 'string' || cursor.length === 0) {
    throw new ConfigurationError({
      message: 'cursor must be a non-empty string: the nextCursor of a previous page.',
    });
  }
  return cursor;
}

/** Checks a `sort`. */
export function checkSort(sort: unknown): string | undefined {
  if (sort === undefined) return undefined;
  if (typeof sort !== 'string' || !(LIST_SORT_VALUES as readonly string[]).includes(sort)) {
    throw new ConfigurationError({
      message: `sort must be one of ${LIST_SORT_VALUES.join(', ')}.`,
    });
  }
  return sort;
}

/** Checks a text filter: a non-empty string of at most `max` characters. */
export function checkText(name: string, value: unknown, max: number): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > max) {
    throw new ConfigurationError({
      message: `${name} must be a string of 1 to ${max} characters.`,
    });
  }
  return value;
}

/** Checks a repeatable filter: one value or a list of 1 to 20, each a non-empty string. */
export function checkOneOf(name: string, value: unknown): readonly string[] | undefined {
  if (value === undefined) return undefined;
  const values = typeof value === 'string' ? [value] : value;
  if (
    !Array.isArray(values) ||
    values.length === 0 ||
    values.length > 20 ||
    !values.every((each) => typeof each === 'string' && each.length > 0 && each.length <= 100)
  ) {
    throw new ConfigurationError({
      message: `${name} must be a value or a list of 1 to 20 values, each 1 to 100 characters.`,
    });
  }
  return values as string[];
}

/** Checks an instant: a `Date` or an ISO 8601 string; sent as ISO 8601 UTC. */
export function checkInstant(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const time =
    value instanceof Date
      ? value.getTime()
      : typeof value === 'string'
        ? Date.parse(value)
        : Number.NaN;
  if (Number.isNaN(time)) {
    throw new ConfigurationError({
      message: `${name} must be a Date or an ISO 8601 timestamp such as 2026-03-01T09:00:00Z.`,
    });
  }
  return typeof value === 'string' ? value : new Date(time).toISOString();
}

import { ConfigurationError } from '../errors.js';

/** The largest `limit` the service accepts. */
export const MAX_LIMIT = 200;
/** The `limit` the service uses when none is given; the SDK always sends it explicitly. */
export const DEFAULT_LIMIT = 50;

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

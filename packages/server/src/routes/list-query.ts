import { LIST_LIMITS } from '@followup/sdk';
import { z } from 'zod';
import { INTEGER_PARAMETER_META } from '../plugins/openapi-document.js';

/**
 * @internal A whole number from a query string: digits only (no sign, exponent or fraction),
 * within bounds. Anything else is a 400, never silently clamped. `default` is only documented
 * (the OpenAPI document shows an integer with its bounds and default); the caller applies it.
 */
export function integerParameter(
  name: string,
  bounds: { min: number; max: number; default?: number },
) {
  const message = `${name} must be a whole number from ${bounds.min} to ${bounds.max}`;
  return z
    .string({ error: message })
    .regex(/^\d{1,16}$/, message)
    .transform(Number)
    .pipe(z.number().int().min(bounds.min, message).max(bounds.max, message))
    .meta({
      [INTEGER_PARAMETER_META]: {
        minimum: bounds.min,
        ...(bounds.max < Number.MAX_SAFE_INTEGER ? { maximum: bounds.max } : {}),
        ...(bounds.default === undefined ? {} : { default: bounds.default }),
      },
    });
}

/** The most rows one list page may hold (the SDK's `LIST_LIMITS.maxLimit`). */
export const MAX_LIST_LIMIT: number = LIST_LIMITS.maxLimit;
/**
 * The largest `offset` of a limit/offset list: the database reads and skips every row before
 * it, so a larger one would cost a scan of the table per request. Walk further with a cursor.
 */
export const MAX_LIST_OFFSET: number = LIST_LIMITS.maxOffset;
/** Rows in a list page when `limit` is not given (the SDK's `LIST_LIMITS.defaultLimit`). */
export const DEFAULT_LIST_LIMIT: number = LIST_LIMITS.defaultLimit;

/** @internal `limit` of every list: 1 to 200, default 50. */
export const limitParameter = integerParameter('limit', {
  min: 1,
  max: MAX_LIST_LIMIT,
  default: DEFAULT_LIST_LIMIT,
})
  .optional()
  .transform((value) => value ?? DEFAULT_LIST_LIMIT);

/**
 * @internal `cursor` of the webhook API's keyset lists: the `nextCursor` of the previous page,
 * opaque, at most 1,024 characters; the route checks it against its limit and filters.
 */
export const cursorParameter = z
  .string()
  .min(1)
  .max(1024)
  .optional()
  .describe('The nextCursor of the previous page; send the same limit and filters');

/**
 * @internal The query of limit/offset lists: `limit` (1 to 200, default 50) and `offset` (0 to
 * 100,000). Any other parameter is a 400 `validation_failed`, never ignored.
 */
export const offsetListQuery = z.strictObject({
  limit: limitParameter,
  offset: integerParameter('offset', { min: 0, max: MAX_LIST_OFFSET, default: 0 })
    .optional()
    .transform((value) => value ?? 0),
});

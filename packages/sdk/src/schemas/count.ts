import { z } from 'zod';

/**
 * Schema of the answer of the count endpoints (v1.1): `{ "count": n }`.
 *
 * @example
 * ```ts
 * const { count } = countSchema.parse(json);
 * ```
 */
export const countSchema = z.looseObject({
  /** How many records there are, a non-negative integer. */
  count: z.number().int().nonnegative(),
});

/**
 * The answer of `GET /api/contacts/count` and `GET /api/deals/count`.
 *
 * @example
 * ```ts
 * const body: Count = { count: 42 };
 * ```
 */
export type Count = z.infer<typeof countSchema>;

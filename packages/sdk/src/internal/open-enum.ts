import { z } from 'zod';

/**
 * A string enumeration that may grow: the known values, for autocompletion and narrowing, plus
 * any other string, so that a value the service adds later never breaks a client built today.
 */
export type OpenEnum<Known extends string> = Known | (string & Record<never, never>);

/**
 * A zod schema for an {@link OpenEnum}: the known values (kept in the JSON Schema the server
 * publishes) or any other string.
 */
export function openEnum<const Known extends readonly [string, ...string[]]>(
  values: Known,
): z.ZodType<OpenEnum<Known[number]>> {
  return z.union([
    z.enum(values),
    // The cast only widens the inferred type so that TypeScript keeps the known literals next to
    // `string`; at run time this is a plain string schema.
    z.string() as unknown as z.ZodType<string & Record<never, never>>,
  ]);
}

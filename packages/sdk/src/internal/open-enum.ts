import { z } from 'zod';
import { boundedText } from '../schemas/input-limits.js';
import { INPUT_LIMITS } from '../wire/limits.js';

/**
 * A string enumeration that may grow: the known values, for autocompletion and narrowing, plus
 * any other string, so that a value the service adds later never breaks a client built today.
 *
 * @example
 * ```ts
 * type Stage = OpenEnum<'OPEN' | 'WON' | 'LOST'>;
 * const stage: Stage = 'NEGOTIATION'; // accepted; 'OPEN' still autocompletes
 * ```
 */
export type OpenEnum<Known extends string> = Known | (string & Record<never, never>);

/**
 * A zod schema for an {@link OpenEnum}: any string, typed as the known values or any other
 * string, with the known values in its JSON Schema (`examples`) and description.
 *
 * At run time it is a plain string schema: a union of the enum and `z.string()` accepts exactly
 * the same values but costs several times more to check, on every item of every page.
 */
export function openEnum<const Known extends readonly [string, ...string[]]>(
  values: Known,
): z.ZodType<OpenEnum<Known[number]>, OpenEnum<Known[number]>> {
  const schema = z.string().meta({
    description: `One of ${values.join(', ')}, or another value added later.`,
    examples: [...values],
  });
  return schema as unknown as z.ZodType<OpenEnum<Known[number]>, OpenEnum<Known[number]>>;
}

/**
 * An {@link openEnum} for request bodies: the same type, and a value of 1 to
 * `INPUT_LIMITS.enumValue` characters that can be stored as it is.
 */
export function boundedOpenEnum<const Known extends readonly [string, ...string[]]>(
  values: Known,
): z.ZodType<OpenEnum<Known[number]>, OpenEnum<Known[number]>> {
  const schema = boundedText({ min: 1, max: INPUT_LIMITS.enumValue }).meta({
    description: `One of ${values.join(', ')}, or another value added later.`,
    examples: [...values],
  });
  return schema as unknown as z.ZodType<OpenEnum<Known[number]>, OpenEnum<Known[number]>>;
}

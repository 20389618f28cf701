import { z } from 'zod';
import { INPUT_LIMITS } from '../wire/limits.js';
import { boundedText } from './input-limits.js';

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
 * The known value that `value` spells in another case (`PATIENT` for `patient`), or `undefined`
 * when `value` is a known value or no known value's case variant. Values are case-sensitive: a
 * case variant of a known value is a typo, never a value of its own.
 */
export function caseVariantOf(values: readonly string[], value: string): string | undefined {
  if (values.includes(value)) return undefined;
  const lower = value.toLowerCase();
  return values.find((known) => known.toLowerCase() === lower);
}

/**
 * What is wrong with a case variant of a known value, as a predicate (the field's name goes
 * before it): `must be written PATIENT: values are case-sensitive (…)`.
 */
export function caseVariantMessage(values: readonly string[], known: string): string {
  return (
    `must be written ${known}: values are case-sensitive ` +
    `(known values: ${values.join(', ')}; others are allowed)`
  );
}

/**
 * An open enumeration's schema for request bodies and filters: typed as the known values or any
 * other string ({@link OpenEnum}), and a value of 1 to `INPUT_LIMITS.enumValue` characters that
 * can be stored as it is. Any value is allowed but a
 * known one spelled in another case (`patient`): it would be stored as a value of its own, which
 * no filter or `switch` on the known value finds.
 *
 * @example
 * ```ts
 * const stage = boundedOpenEnum(['OPEN', 'WON', 'LOST']);
 * stage.parse('NEGOTIATION'); // accepted: a stage added later
 * stage.safeParse('won').success; // false: must be written WON
 * ```
 */
export function boundedOpenEnum<const Known extends readonly [string, ...string[]]>(
  values: Known,
): z.ZodType<OpenEnum<Known[number]>, OpenEnum<Known[number]>> {
  const schema = boundedText({ min: 1, max: INPUT_LIMITS.enumValue })
    .superRefine((value, context) => {
      const known = caseVariantOf(values, value);
      if (known !== undefined) {
        // Fatal, like a wrong type: a union of a value and a list of them (a repeatable filter)
        // then reports it against the parameter, not against one branch's index.
        context.addIssue({
          code: 'custom',
          message: caseVariantMessage(values, known),
          continue: false,
        });
      }
    })
    .meta({
      description: `One of ${values.join(', ')} (case-sensitive), or another value added later.`,
      examples: [...values],
    });
  return schema as unknown as z.ZodType<OpenEnum<Known[number]>, OpenEnum<Known[number]>>;
}

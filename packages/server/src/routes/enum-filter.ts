import { boundedOpenEnum } from '@followup/sdk';
import { z } from 'zod';

/** @internal What an enumerated filter takes. */
export interface EnumFilterOptions {
  /** The query parameter, such as `lifecycle`. */
  name: string;
  /** The values the contract names (the SDK's `LIFECYCLE_VALUES`, `WEBHOOK_EVENT_KINDS`). */
  values: readonly [string, ...string[]];
  /**
   * An open enumeration (the records may carry values the contract does not name, such as a
   * lifecycle added later): any value is a filter, but a known one spelled in another case. A
   * closed one takes its values only.
   */
  open: boolean;
  /** The most values one request may repeat. */
  maxValues: number;
}

/**
 * @internal A repeatable query parameter that filters by an enumeration, as the list of its
 * values. Values are case-sensitive, as the records' are: `lifecycle=patient` would match no
 * contact, so it is a 400 `validation_failed` that names the known values (`must be written
 * PATIENT`) rather than an empty page; a closed enumeration refuses any value it does not have,
 * naming them. The OpenAPI document shows a closed one as an `enum`, and an open one as a string
 * with its known values as examples and a description that says others are allowed.
 */
export function enumFilterParameter(options: EnumFilterOptions) {
  const { name, values, open, maxValues } = options;
  const value = open ? boundedOpenEnum(values) : z.enum(values);
  const description = open
    ? `Only records whose ${name} is one of these values; repeat the parameter for several. ` +
      `An open enumeration: ${values.join(', ')} or any other value, case-sensitive ` +
      `(a known value in another case, such as ${values[0].toLowerCase()}, is refused).`
    : `Only records whose ${name} is one of these values; repeat the parameter for several. ` +
      `One of ${values.join(', ')}, case-sensitive; any other value is refused.`;
  return z
    .union([value, z.array(value).max(maxValues)])
    .transform((given): string[] => (Array.isArray(given) ? given : [given]))
    .optional()
    .describe(description);
}

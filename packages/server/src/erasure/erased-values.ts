import { ERASED_VALUE } from '@followup/sdk';

/**
 * @internal A copy of `record` with each of `fields` that holds a value (anything but `null` or
 * absent) replaced by `"[erased]"`; every other key (ids, kinds, times, counts) as it was. A
 * field that had no value keeps saying so: `null` stays `null`.
 *
 * @example
 * ```ts
 * eraseFields({ id: 'deal_1', title: 'Knee', stage: 'OPEN' }, ['title']);
 * // { id: 'deal_1', title: '[erased]', stage: 'OPEN' }
 * ```
 */
export function eraseFields(
  record: Readonly<Record<string, unknown>>,
  fields: readonly string[],
): Record<string, unknown> {
  const erased: Record<string, unknown> = { ...record };
  for (const field of fields) {
    const value = record[field];
    if (value !== null && value !== undefined) erased[field] = ERASED_VALUE;
  }
  return erased;
}

/**
 * @internal How a value is compared with a person's known values in JavaScript: case and
 * surrounding spaces, tabs and line breaks aside (`comparableValueSql` of
 * `stores/contact-erasure-store.ts` in SQL).
 */
export function comparableValue(value: string): string {
  return value.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, '').toLowerCase();
}

/**
 * @internal A copy of `value` (any JSON) in which every string equal to one of `known` (compared
 * by {@link comparableValue}) is `"[erased]"`, at any depth, in objects and arrays; keys and
 * other values as they were. What erases a person's values from details whose shape the eraser
 * does not know (audit entries).
 *
 * @example
 * ```ts
 * eraseKnownValues({ fields: ['email'], email: 'ADA@example.com' }, new Set(['ada@example.com']));
 * // { fields: ['email'], email: '[erased]' }
 * ```
 */
export function eraseKnownValues(value: unknown, known: ReadonlySet<string>): unknown {
  if (typeof value === 'string') {
    return known.has(comparableValue(value)) ? ERASED_VALUE : value;
  }
  if (Array.isArray(value)) return value.map((item) => eraseKnownValues(item, known));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, eraseKnownValues(item, known)]),
    );
  }
  return value;
}

/** @internal Which records {@link eraseRecordsOf} erases, and which of their fields. */
export interface ErasedRecords {
  /** The contact's id: an object whose `id` it is is the contact. */
  contactId: string;
  /** The contact's fields as the API names them (`firstName`, …). */
  contactFields: readonly string[];
  /** The fields of a deal (an object whose `contactId` is the contact's) to erase. */
  dealFields: readonly string[];
}

/**
 * @internal A copy of `value` (any JSON, such as a stored response) in which the contact (an
 * object whose `id` is its id) has its fields erased, and each of its deals (an object whose
 * `contactId` is its id) the deal fields, at any depth. Other objects, an erasure's own answer
 * among them (its `id` is the contact's, but it has none of the contact's fields), stay as they
 * were.
 */
export function eraseRecordsOf(value: unknown, records: ErasedRecords): unknown {
  if (Array.isArray(value)) return value.map((item) => eraseRecordsOf(item, records));
  if (typeof value !== 'object' || value === null) return value;
  let object = Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, eraseRecordsOf(item, records)]),
  );
  if (object.id === records.contactId) object = eraseFields(object, records.contactFields);
  if (object.contactId === records.contactId) object = eraseFields(object, records.dealFields);
  return object;
}

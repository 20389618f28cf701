/** @internal How one API field of a resource is stored. */
export interface ResourceField {
  /** The column. */
  column: string;
  /** `text` (default), `integer` (a `bigint` column, read back as a number) or `json`. */
  type?: 'text' | 'integer' | 'json';
  /** Left out of the API object while the column is null. */
  optional?: boolean;
}

/** @internal How the records of a resource are stored: its fields, and whether rows carry `updatedAt`. */
export interface ResourceRowShape {
  /** The API fields other than `id`, `createdAt` and `updatedAt`, in the API's order. */
  fields: Readonly<Record<string, ResourceField>>;
  /** Whether records carry `updatedAt` (users do not). */
  updatedAt: boolean;
}

// The fields of each definition as entries, made once rather than for every row of every page.
const fieldEntriesByFields = new WeakMap<object, readonly [string, ResourceField][]>();

function fieldEntries(fields: ResourceRowShape['fields']): readonly [string, ResourceField][] {
  let entries = fieldEntriesByFields.get(fields);
  if (entries === undefined) {
    entries = Object.entries(fields);
    fieldEntriesByFields.set(fields, entries);
  }
  return entries;
}

/**
 * @internal The API object of a stored row: `id`, the fields in their order (an optional one left
 * out while null), `createdAt` and, where the resource has it, `updatedAt`.
 */
export function itemFromRow(
  shape: ResourceRowShape,
  row: Record<string, unknown>,
): Record<string, unknown> {
  const item: Record<string, unknown> = { id: row.id };
  for (const [key, field] of fieldEntries(shape.fields)) {
    const value = row[field.column];
    if (value === null || value === undefined) {
      if (!field.optional) item[key] = value ?? null;
      continue;
    }
    item[key] = field.type === 'integer' ? Number(value) : value;
  }
  item.createdAt = row.created_at;
  if (shape.updatedAt) item.updatedAt = row.updated_at;
  return item;
}

/** @internal The columns of {@link itemFromRow}'s row, for a `SELECT` or `RETURNING`. */
export function itemColumns(shape: ResourceRowShape): string {
  return [
    'id',
    ...Object.values(shape.fields).map((field) => field.column),
    'created_at',
    ...(shape.updatedAt ? ['updated_at'] : []),
  ].join(', ');
}

/** @internal The parameter that stores an API value in a field's column (JSON as its text). */
export function columnValue(field: ResourceField, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  return field.type === 'json' ? JSON.stringify(value) : value;
}

import { LIST_SORT_VALUES } from '@followup/sdk';
import { z } from 'zod';
import {
  cursorTimestamp,
  decodeListCursor,
  encodeListCursor,
  type ListPosition,
  listFingerprint,
  positionOf,
} from '../list-cursor.js';
import { ProblemError } from '../problem-error.js';
import type { Queryable } from '../storage/database.js';
import {
  type KeysetFilterRequest,
  type KeysetListFilters,
  type KeysetListSource,
  readKeysetPage,
} from '../stores/resource-list-store.js';
import { enumFilterParameter } from './enum-filter.js';
import { integerParameter, limitParameter, MAX_LIST_OFFSET } from './list-query.js';

/** The orders of a contacts or deals list; `-` is newest first: the SDK's `LIST_SORT_VALUES`. */
export const LIST_SORTS = LIST_SORT_VALUES;

/** The most values one repeatable filter takes. */
const maxFilterValues = 20;

const wellFormed = (value: string) => !value.includes('\u0000') && value.isWellFormed();

/** @internal A text query parameter: 1 to `max` characters, no NUL, no lone surrogate. */
function textParameter(name: string, max: number) {
  const message = `${name} must be 1 to ${max} characters`;
  return z
    .string({ error: `${name} must be given once` })
    .min(1, message)
    .max(max, message)
    .refine(wellFormed, `${name} must not contain NUL or a lone surrogate`);
}

const isoTimestamp =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-](\d{2}):(\d{2}))$/;
const timestampMessage = 'updatedSince must be an ISO 8601 timestamp such as 2026-03-01T09:00:00Z';

/**
 * @internal Reads an ISO 8601 date and time with `Z` or an offset (years 0001 to 9999) to the
 * millisecond, as every timestamp the API writes; `undefined` for anything else, including
 * dates that do not exist (2026-02-30).
 */
export function parseIsoTimestamp(value: string): string | undefined {
  const match = isoTimestamp.exec(value);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match
    .slice(1, 7)
    .map((part) => Number(part ?? 0));
  const fields = new Date(0);
  fields.setUTCFullYear(year as number, (month as number) - 1, day);
  fields.setUTCHours(hour as number, minute, second);
  if (
    year === 0 ||
    fields.getUTCFullYear() !== year ||
    fields.getUTCMonth() !== (month as number) - 1 ||
    fields.getUTCDate() !== day ||
    fields.getUTCHours() !== hour ||
    fields.getUTCMinutes() !== minute ||
    fields.getUTCSeconds() !== second ||
    Number(match[9] ?? 0) > 23 ||
    Number(match[10] ?? 0) > 59
  ) {
    return undefined;
  }
  const time = Date.parse(value);
  if (Number.isNaN(time)) return undefined;
  const iso = new Date(time).toISOString();
  // An offset can carry 0001-01-01 into year 0, which PostgreSQL does not have.
  return /^\d{4}-/.test(iso) && !iso.startsWith('0000') ? iso : undefined;
}

/** @internal `updatedSince`: see {@link parseIsoTimestamp}. */
export const timestampParameter = z
  .string({ error: 'updatedSince must be given once' })
  .max(40, timestampMessage)
  .transform((value, context) => {
    const iso = parseIsoTimestamp(value);
    if (iso === undefined) {
      context.addIssue({ code: 'custom', message: timestampMessage });
      return z.NEVER;
    }
    return iso;
  });

/**
 * The filter parameters of a keyset list and of its count: `updatedSince`, the `oneOf` filter,
 * `email` and `q`, as the filters offer them.
 */
function filterShape(filters: KeysetListFilters): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {
    updatedSince: timestampParameter
      .optional()
      .describe('Only records changed at or after this ISO 8601 time'),
  };
  if (filters.oneOf) {
    const { parameter, values, open } = filters.oneOf;
    shape[parameter] = enumFilterParameter({
      name: parameter,
      values,
      open,
      maxValues: maxFilterValues,
    });
  }
  if (filters.email) {
    shape.email = textParameter('email', 320)
      .optional()
      .describe('Only contacts with this e-mail address, compared case-insensitively');
  }
  if (filters.search) {
    shape.q = textParameter('q', 100).optional().describe(filters.search.description);
  }
  return shape;
}

/** @internal The query of a keyset list with these filters; unknown parameters are refused. */
export function keysetListQuery(filters: KeysetListFilters) {
  return z.strictObject({
    limit: limitParameter,
    offset: integerParameter('offset', { min: 0, max: MAX_LIST_OFFSET, default: 0 }).optional(),
    cursor: textParameter('cursor', 1024)
      .optional()
      .describe('The nextCursor of the previous page; send the same limit, filters and sort'),
    sort: z
      .enum(LIST_SORTS, { error: `sort must be one of ${LIST_SORTS.join(', ')}` })
      .optional()
      .describe('createdAt (default), -createdAt, updatedAt or -updatedAt'),
    ...filterShape(filters),
  });
}

/**
 * @internal The query of a keyset list's count (`GET <path>/count`): the list's filters, none of
 * its paging or order; unknown parameters are refused, as the list refuses them.
 */
export function keysetCountQuery(filters: KeysetListFilters) {
  return z.strictObject(filterShape(filters));
}

/**
 * @internal The filters of a parsed list or count query as the store reads them
 * ({@link KeysetFilterRequest}): what the count and every page of one query have in common.
 */
export function keysetFilterRequest(
  filters: KeysetListFilters,
  query: Partial<KeysetListQuery>,
): KeysetFilterRequest {
  return {
    oneOf: filters.oneOf ? (query[filters.oneOf.parameter] as string[] | undefined) : undefined,
    email: query.email,
    q: query.q,
    updatedSince: query.updatedSince,
  };
}

/** @internal A parsed keyset list query. */
export interface KeysetListQuery {
  limit: number;
  offset?: number;
  cursor?: string;
  sort?: (typeof LIST_SORTS)[number];
  updatedSince?: string;
  email?: string;
  q?: string;
  [filter: string]: unknown;
}

function invalid(path: string, message: string): ProblemError {
  return new ProblemError({
    code: 'validation_failed',
    detail: 'The request is not valid: see errors.',
    errors: [{ path, message }],
  });
}

/**
 * @internal One page of a keyset list and the cursor after it: the cursor checked against the
 * query (a 400 `validation_failed` on `cursor` otherwise), the rows read by the store's
 * {@link readKeysetPage} (`sort=createdAt` is `created_at, id`; `updatedAt` is the change order).
 */
export async function listPage(
  database: Queryable,
  source: KeysetListSource,
  query: KeysetListQuery,
): Promise<{ items: Record<string, unknown>[]; nextCursor: string | null }> {
  const { filters } = source;
  const sort = query.sort ?? 'createdAt';
  const descending = sort.startsWith('-');
  const kind: ListPosition['kind'] = sort.endsWith('updatedAt') ? 'change' : 'createdAt';
  const oneOf = filters.oneOf
    ? (query[filters.oneOf.parameter] as string[] | undefined)
    : undefined;
  const fingerprint = listFingerprint([
    sort,
    query.limit,
    oneOf ? [...new Set(oneOf)].sort() : null,
    query.email?.toLowerCase() ?? null,
    query.q ?? null,
    query.updatedSince ?? null,
  ]);

  let position: ListPosition | undefined;
  if (query.cursor !== undefined) {
    if (query.offset !== undefined) {
      throw invalid('cursor', 'cursor and offset cannot be used together');
    }
    const decoded = decodeListCursor(query.cursor);
    if (decoded === undefined) throw invalid('cursor', 'cursor is not a nextCursor of this list');
    if (decoded.fingerprint !== fingerprint) {
      throw invalid(
        'cursor',
        'cursor was made for another limit, sort or filters: send the same ones again',
      );
    }
    position = positionOf(kind, decoded.values);
    if (position === undefined) throw invalid('cursor', 'cursor is not a nextCursor of this list');
  }

  const rows = await readKeysetPage(database, {
    source,
    request: {
      kind,
      descending,
      position,
      oneOf,
      email: query.email,
      q: query.q,
      updatedSince: query.updatedSince,
      limit: query.limit,
      offset: query.offset,
    },
  });
  const page = rows.length > query.limit ? rows.slice(0, query.limit) : rows;
  const last = page.at(-1);
  let nextCursor: string | null = null;
  if (rows.length > query.limit && last) {
    nextCursor = encodeListCursor(
      fingerprint,
      kind === 'change'
        ? { kind, xid: String(last.cursor_xid), seq: String(last.cursor_seq) }
        : { kind, createdAt: cursorTimestamp(String(last.cursor_at)), id: String(last.id) },
    );
  }
  return { items: page.map(source.toItem), nextCursor };
}

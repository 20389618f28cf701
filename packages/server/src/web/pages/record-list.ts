// A list of records (contacts, deals) in the web application: newest first, 50 a page, walked
// with the keyset in both directions, so that Next and Previous cost an index range each, at any
// depth; the filters are those of the API's list (`q`, `lifecycle`, `stage`), read by the same
// store (`stores/resource-list-store.ts`), with the count of every row they match.

import {
  cursorTimestamp,
  decodeListCursor,
  encodeListCursor,
  type ListPosition,
  listFingerprint,
  positionOf,
} from '../../list-cursor.js';
import { ProblemError } from '../../problem-error.js';
import type { Queryable } from '../../storage/database.js';
import {
  countKeysetRows,
  type KeysetFilterRequest,
  type KeysetListSource,
  readKeysetPage,
} from '../../stores/resource-list-store.js';
import { PAGE_SIZE } from './list-page.js';
import { textField } from './page-helpers.js';

/** @internal The longest `q` a list page takes: the API's. */
export const MAX_SEARCH_LENGTH = 100;

/** @internal Where a page starts: after (older than) or before (newer than) a row. */
export type RecordListStart =
  | { direction: 'after' | 'before'; position: ListPosition & { kind: 'createdAt' } }
  | undefined;

function invalidLink(path: string, message: string): ProblemError {
  return new ProblemError({
    code: 'validation_failed',
    detail: `This link to a page of the list is not valid: ${message}. Start again from the first page.`,
    errors: [{ path, message }],
  });
}

/**
 * @internal The filters' fingerprint in a page's cursor: a cursor of one list or filter is
 * refused by another, as the API's are.
 */
function fingerprintOf(path: string, filters: Record<string, string>): string {
  return listFingerprint(['web', path, Object.entries(filters).sort()]);
}

/**
 * @internal Reads `after` or `before` (one of them) from a list page's query: the position of a
 * row of the list at `path` with these `filters`, or `undefined` for the first page. Anything
 * this page did not write (another list's cursor, another filter's, a damaged one, both at once)
 * throws a 400 `validation_failed`, shown as a page; any text may arrive, none may throw anything
 * else.
 */
export function recordListStart(
  query: unknown,
  list: { path: string; filters: Record<string, string> },
): RecordListStart {
  const after = textField(query, 'after', 1024);
  const before = textField(query, 'before', 1024);
  if (after && before) throw invalidLink('after', 'after and before cannot be used together');
  const cursor = after || before;
  if (!cursor) return undefined;
  const direction = after ? 'after' : 'before';
  const decoded = decodeListCursor(cursor);
  if (decoded === undefined) throw invalidLink(direction, 'it is damaged');
  if (decoded.fingerprint !== fingerprintOf(list.path, list.filters)) {
    throw invalidLink(direction, 'it was made for other filters');
  }
  const position = positionOf('createdAt', decoded.values);
  if (position?.kind !== 'createdAt') throw invalidLink(direction, 'it is damaged');
  return { direction, position };
}

/** @internal A page of a record list: its items, its links, and how many the filters match. */
export interface RecordListPage {
  items: Record<string, unknown>[];
  /** The count of every row the filters match, over all pages. */
  total: number;
  /** The link to the newer page, or `null` on the first. */
  previous: string | null;
  /** The link to the older page, or `null` on the last. */
  next: string | null;
}

/**
 * @internal One page of the list at `path`, newest first: the first, or the one after or before
 * the row the query's cursor names; the links keep the filters (`filters`, the query's fields as
 * the page read them, empty ones left out) and `request` is the same filters as the store reads
 * them.
 */
export async function readRecordListPage(
  queryable: Queryable,
  list: {
    source: KeysetListSource;
    path: string;
    query: unknown;
    filters: Record<string, string>;
    request: KeysetFilterRequest;
  },
): Promise<RecordListPage> {
  const filters = Object.fromEntries(
    Object.entries(list.filters).filter(([, value]) => value !== ''),
  );
  const start = recordListStart(list.query, { path: list.path, filters });
  const backwards = start?.direction === 'before';
  const [rows, total] = await Promise.all([
    readKeysetPage(queryable, {
      source: list.source,
      request: {
        ...list.request,
        kind: 'createdAt',
        // Newest first; a Previous page reads the newer rows oldest first, from its position.
        descending: !backwards,
        position: start?.position,
        limit: PAGE_SIZE,
      },
    }),
    countKeysetRows(queryable, { source: list.source, request: list.request }),
  ]);
  const more = rows.length > PAGE_SIZE;
  if (backwards && !more) {
    // Back at the top (rows newer than the first page's were added or removed meanwhile): the
    // first page itself, full, rather than a short page before it.
    return readRecordListPage(queryable, { ...list, query: {} });
  }
  const page = rows.slice(0, PAGE_SIZE);
  if (backwards) page.reverse();
  const link = (direction: 'after' | 'before', row: Record<string, unknown> | undefined) => {
    if (!row) return null;
    const cursor = encodeListCursor(fingerprintOf(list.path, filters), {
      kind: 'createdAt',
      createdAt: cursorTimestamp(String(row.cursor_at)),
      id: String(row.id),
    });
    return `${list.path}?${new URLSearchParams({ ...filters, [direction]: cursor }).toString()}`;
  };
  // Read forwards, there is a newer page when the walk did not start at the top; read backwards,
  // when rows remain above. Either way an older page exists when this one came from it.
  const newer = backwards ? more : start !== undefined;
  const older = backwards ? true : more;
  return {
    items: page.map(list.source.toItem),
    total,
    previous: newer ? link('before', page[0]) : null,
    next: older ? link('after', page.at(-1)) : null,
  };
}

// A record's id as this server writes them: a prefix, `_`, letters and digits; printable ASCII
// keeps NUL and lone surrogates (which PostgreSQL refuses) away from the database.
const recordIdPattern = /^[\x21-\x7e]{1,255}$/;

/**
 * @internal The id of a record page's path, or `undefined` when it cannot be one (the page then
 * answers its 404, as for an id nothing has).
 */
export function recordIdParam(params: unknown): string | undefined {
  const id = textField(params, 'id', 256);
  return recordIdPattern.test(id) ? id : undefined;
}

/**
 * @internal A filter chosen from a list (`lifecycle`, `stage`): `''` for any, else one of
 * `values`; anything else is a 400 `validation_failed` naming the values.
 */
export function choiceField(query: unknown, name: string, values: readonly string[]): string {
  const value = textField(query, name, 100);
  if (value === '' || values.includes(value)) return value;
  throw new ProblemError({
    code: 'validation_failed',
    detail: `${name} must be one of ${values.join(', ')}.`,
    errors: [{ path: name, message: `${name} must be one of ${values.join(', ')}` }],
  });
}

/**
 * @internal The search `q` of a list page, trimmed: up to {@link MAX_SEARCH_LENGTH}
 * characters (longer is a 400, as in the API), never NUL or a lone surrogate (a 400 too).
 */
export function searchField(query: unknown): string {
  // Read whole (the query string itself is bounded), so that a long one is refused, not cut.
  const q = textField(query, 'q', 4 * MAX_SEARCH_LENGTH);
  const message =
    q.length > MAX_SEARCH_LENGTH
      ? `q must be at most ${MAX_SEARCH_LENGTH} characters`
      : q.includes('\u0000') || !q.isWellFormed()
        ? 'q must not contain NUL or a lone surrogate'
        : undefined;
  if (message === undefined) return q;
  throw new ProblemError({
    code: 'validation_failed',
    detail: `The search is not valid: ${message}.`,
    errors: [{ path: 'q', message }],
  });
}

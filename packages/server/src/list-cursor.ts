import { hash } from 'node:crypto';
import { boundedMemo } from './bounded-memo.js';
import {
  type ChangePosition,
  LEGACY_CHANGE_XID,
  parseChangePosition,
} from './storage/change-order.js';

/**
 * @internal Where a keyset walk stands: after the row with this `createdAt` (microseconds, as
 * the database holds it) and `id`, or after the change `(xid, seq)`: its writing transaction
 * and its change number (see change-order.ts).
 */
export type ListPosition =
  | { kind: 'createdAt'; createdAt: string; id: string }
  | ({ kind: 'change' } & ChangePosition);

/** @internal What a list cursor carries: the fingerprint of its query, and a position. */
export interface DecodedListCursor {
  fingerprint: string;
  values: string[];
}

const version = 'l1';
const maxCursorLength = 1024;
const fingerprintPattern = /^[A-Za-z0-9_-]{22}$/;
// A timestamp to the microsecond, as cursorTimestamp writes it: 2026-01-02T03:04:05.678912Z.
const timestampPattern = /^(\d{4})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
// A timestamptz as a UTC session with DateStyle ISO writes it in text, years 1 to 9999.
const timestamptzText = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\+00$/;
// Ids are made by this server: a prefix, `_` and letters or digits. Printable ASCII is plenty,
// and keeps NUL and lone surrogates (which PostgreSQL refuses) out of the query.
const idPattern = /^[\x21-\x7e]{1,255}$/;

// Remembered for the queries asked again and again (the same page of the same list), up to 256.
const fingerprintOf = boundedMemo((text) => hash('sha256', text, 'base64url').slice(0, 22), 256);

/**
 * @internal The fingerprint of a list query: a digest of every parameter but `cursor` and
 * `offset` (sort, limit, filters), in a canonical form. A cursor made for one query and used
 * with another is refused by comparing these.
 */
export function listFingerprint(canonical: readonly unknown[]): string {
  return fingerprintOf(JSON.stringify(canonical));
}

/**
 * @internal The position of a row in a cursor, from its `created_at::text` (the storage sessions
 * run in UTC with DateStyle ISO: `2026-01-02 03:04:05.6789+00`): the instant to the microsecond,
 * `2026-01-02T03:04:05.678900Z`, exactly what
 * `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')` writes, made in
 * JavaScript for the one row a page's cursor names rather than by the database for every row.
 * Any other text (a year past 9999, a date BC) comes back as it is, which no cursor accepts.
 */
export function cursorTimestamp(text: string): string {
  const match = timestamptzText.exec(text);
  if (!match) return text;
  return `${match[1]}T${match[2]}.${(match[3] ?? '').padEnd(6, '0')}Z`;
}

/** @internal Makes the opaque `nextCursor` that points after `position`. */
export function encodeListCursor(fingerprint: string, position: ListPosition): string {
  const values =
    position.kind === 'change' ? [position.seq, position.xid] : [position.createdAt, position.id];
  return Buffer.from(JSON.stringify([version, fingerprint, ...values]), 'utf8').toString(
    'base64url',
  );
}

/**
 * @internal Reads a cursor's envelope; `undefined` for anything this server did not make. Any
 * string may arrive here: nothing in it may throw.
 */
export function decodeListCursor(cursor: string): DecodedListCursor | undefined {
  if (cursor.length > maxCursorLength || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length < 3 || parsed.length > 4) return undefined;
  if (!parsed.every((value) => typeof value === 'string')) return undefined;
  const [tag, fingerprint, ...values] = parsed as string[];
  if (tag !== version || fingerprint === undefined || !fingerprintPattern.test(fingerprint)) {
    return undefined;
  }
  return { fingerprint, values };
}

/**
 * @internal The position of a decoded cursor for a walk of this kind; `undefined` when its
 * values are not a position of that kind (or not one the database could read).
 */
export function positionOf(
  kind: ListPosition['kind'],
  values: readonly string[],
): ListPosition | undefined {
  if (kind === 'change') {
    // A cursor made before migration 25 holds the change number alone.
    const [seq, xid = LEGACY_CHANGE_XID] = values;
    if (values.length > 2 || seq === undefined) return undefined;
    const position = parseChangePosition(xid, seq);
    return position && { kind, ...position };
  }
  const [createdAt, id] = values;
  if (values.length !== 2 || createdAt === undefined || id === undefined) return undefined;
  const match = timestampPattern.exec(createdAt);
  if (!match || match[1] === '0000' || !idPattern.test(id)) return undefined;
  // A real date and time: the round trip through Date changes nothing before the fraction.
  const time = Date.parse(`${createdAt.slice(0, 23)}Z`);
  if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 19) !== createdAt.slice(0, 19)) {
    return undefined;
  }
  return { kind, createdAt, id };
}

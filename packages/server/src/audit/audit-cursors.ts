import {
  type ChangePosition,
  LEGACY_CHANGE_XID,
  parseChangePosition,
} from '../storage/change-order.js';
import { isBigintText } from '../storage/integer-text.js';

// The audit log's opaque cursors: the oldest-first walk's (a change position) and the
// newest-first pages' (an entry's seq). Each decoder answers `undefined` for anything this
// server did not make.

const cursorPrefix = 'audit:v2:';
// Made before migration 25: the entry's seq alone, an entry of transaction 1 (LEGACY_CHANGE_XID).
const legacyCursorPrefix = 'audit:v1:';

/** @internal Makes the opaque cursor that points after the entry at this position. */
export function encodeAuditCursor(position: ChangePosition): string {
  return Buffer.from(`${cursorPrefix}${position.xid}:${position.seq}`, 'utf8').toString(
    'base64url',
  );
}

/**
 * @internal Reads a cursor back (one made before migration 25 too); `undefined` for anything
 * this server did not make.
 */
export function decodeAuditCursor(cursor: string): ChangePosition | undefined {
  if (!/^[A-Za-z0-9_-]{1,96}$/.test(cursor)) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (text.startsWith(legacyCursorPrefix)) {
    return parseChangePosition(LEGACY_CHANGE_XID, text.slice(legacyCursorPrefix.length));
  }
  if (!text.startsWith(cursorPrefix)) return undefined;
  const [xid = '', seq = '', ...rest] = text.slice(cursorPrefix.length).split(':');
  return rest.length > 0 ? undefined : parseChangePosition(xid, seq);
}

const recentCursorPrefix = 'audit:v1:before:';

/** @internal Makes the cursor of a newest-first page that points before the entry `seq`. */
export function encodeRecentAuditCursor(seq: string): string {
  return Buffer.from(`${recentCursorPrefix}${seq}`, 'utf8').toString('base64url');
}

/**
 * @internal Reads a newest-first cursor back: the entry's `seq`, or `undefined` for anything this
 * server did not make, a number past the `bigint` range included (the statement would fail).
 */
export function decodeRecentAuditCursor(cursor: string): string | undefined {
  if (!/^[A-Za-z0-9_-]{1,80}$/.test(cursor)) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith(recentCursorPrefix)) return undefined;
  const seq = text.slice(recentCursorPrefix.length);
  return isBigintText(seq) ? seq : undefined;
}

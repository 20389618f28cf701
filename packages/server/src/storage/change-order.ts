import { isBigintText, isXid8Text } from './integer-text.js';

/**
 * @internal The change order of a table whose rows carry `change_seq` and `change_xid`
 * (contacts, deals): each insert and update takes a number from the table's sequence, and
 * records the id of its transaction (migration 25). Writers take no lock: a walk in change order
 * reads `(change_xid, change_seq)` ascending, and only changes of transactions that ended before
 * every transaction still running ({@link FINISHED_TRANSACTIONS_BOUND}), so a change that
 * commits late can never land behind a position a reader already handed out.
 */
export interface ChangeOrder {
  /** The sequence `change_seq` is taken from, such as `contact_change_seq`. */
  sequence: string;
}

/** @internal Contacts: inserts, updates and deletes (tombstones) share one change sequence. */
export const contactChangeOrder: ChangeOrder = { sequence: 'contact_change_seq' };

/** @internal Deals. */
export const dealChangeOrder: ChangeOrder = { sequence: 'deal_change_seq' };

/**
 * @internal The lowest transaction id that may still commit, in SQL: every transaction with a
 * lower id had ended when the statement's snapshot was taken, and every later one (running now,
 * or not yet started) gets an id at or above it. A walk that reads only changes below it, in
 * `(xid, seq)` order, passes no change that commits later.
 */
export const FINISHED_TRANSACTIONS_BOUND = 'pg_snapshot_xmin(pg_current_snapshot())';

/**
 * @internal The assignments an update of a row in `order` makes: a new change number, and the
 * updating transaction's id (an insert gets both from the columns' defaults).
 */
export function changeAssignments(order: ChangeOrder): string {
  return `change_seq = nextval('${order.sequence}'), change_xid = pg_current_xact_id()`;
}

/** @internal Where a walk in change order stands: after the change `(xid, seq)`. */
export interface ChangePosition {
  /** The writing transaction's id (`xid8`), decimal. */
  xid: string;
  /** The change number (`bigint`), decimal. */
  seq: string;
}

/**
 * @internal Reads a change position from the decimal text of its transaction id and change
 * number, as a cursor carries them; `undefined` unless PostgreSQL can read both (`xid8` below
 * 2^64, `bigint` below 2^63), so that a forged cursor is refused, never a failed statement.
 */
export function parseChangePosition(xid: string, seq: string): ChangePosition | undefined {
  return isXid8Text(xid) && isBigintText(seq) ? { xid, seq } : undefined;
}

/**
 * @internal The position a cursor made before migration 25 names with its change number alone:
 * rows from before it hold transaction id 1, so they keep their place ahead of every later
 * change.
 */
export const LEGACY_CHANGE_XID = '1';

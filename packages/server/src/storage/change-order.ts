import type { Queryable } from './database.js';

/**
 * @internal The change order of a table whose rows carry `change_seq` (contacts, deals): the
 * sequence that numbers each insert and update, and the advisory lock its writers hold.
 */
export interface ChangeOrder {
  /** The sequence `change_seq` is taken from, such as `contact_change_seq`. */
  sequence: string;
  /** The transaction-scoped advisory lock key of the table's writers (a 64-bit integer). */
  lockKey: string;
}

/**
 * @internal Contacts: inserts, updates and deletes (tombstones) share one change sequence.
 * Lock keys sit beside the migration lock (7312045781) and the audit lock (7312045782).
 */
export const contactChangeOrder: ChangeOrder = {
  sequence: 'contact_change_seq',
  lockKey: '7312045790',
};

/** @internal Deals. */
export const dealChangeOrder: ChangeOrder = { sequence: 'deal_change_seq', lockKey: '7312045791' };

/**
 * @internal Takes the table's change lock for the rest of the transaction. Writers of the table
 * take it before they take a `change_seq`, so numbers are handed out in commit order: a reader
 * that sees number n+1 also sees n, and a walk by `change_seq` returns every change exactly once
 * even while writes continue (the audit log's cursor rests on the same argument). Read the clock
 * after this, so that `updatedAt` follows the same order as long as the clock does not step back.
 */
export async function lockChanges(transaction: Queryable, order: ChangeOrder): Promise<void> {
  await transaction.query('SELECT pg_advisory_xact_lock($1::bigint)', [order.lockKey]);
}

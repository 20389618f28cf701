import { LIST_LIMITS } from '@followup/sdk';
import { FollowUpServerError } from '../errors.js';
import type { ChangePosition } from '../storage/change-order.js';
import type { Queryable } from '../storage/database.js';
import type { AuditDependencies, AuditEntry, NewAuditEntry } from '../stores/audit-store.js';
import {
  insertAuditEntry,
  readAuditEntriesAfter,
  readAuditEntriesBefore,
} from '../stores/audit-store.js';
import {
  decodeAuditCursor,
  decodeRecentAuditCursor,
  encodeAuditCursor,
  encodeRecentAuditCursor,
} from './audit-cursors.js';

// Writers of audit entries take no lock: each entry records its transaction's id (`xid`, by
// default), and the cursor walk reads `(xid, seq)` in order, only entries of transactions that
// have ended (see change-order.ts and migration 25). An entry that commits late can never land
// behind a position a reader already has: a walk returns every entry exactly once, even while
// entries are being written.

/**
 * Appends an entry to the audit log. Pass the transaction of the change it records, so that the
 * change and its entry commit together (or neither does).
 *
 * @example
 * ```ts
 * await database.transaction(async (transaction) => {
 *   await transaction.query('UPDATE tokens SET revoked_at = $2 WHERE id = $1', [id, now]);
 *   await recordAuditEntry(transaction, {
 *     action: 'token.revoked',
 *     actor: { type: 'operator' },
 *     target: { type: 'token', id },
 *   }, { clock, newId });
 * });
 * ```
 */
export async function recordAuditEntry(
  queryable: Queryable,
  entry: NewAuditEntry,
  dependencies: AuditDependencies,
): Promise<AuditEntry> {
  return insertAuditEntry(queryable, entry, dependencies);
}

/** One page of the audit log. */
export interface AuditPage {
  /** Oldest first. */
  entries: AuditEntry[];
  /** Pass it back as `cursor` for the next page; `null` on the last page. */
  nextCursor: string | null;
}

/** Options of {@link listAuditEntries}. */
export interface ListAuditEntriesOptions {
  /** Entries per page, 1 to 200; defaults to 50. */
  limit?: number;
  /** The `nextCursor` of the previous page; omit it for the first page. */
  cursor?: string;
}

const actorTypes = new Set(['service_account', 'user', 'operator', 'system']);

/** A page size: 1 to the list maximum (200), the default (50) when not given. */
function checkedLimit(limit: number = LIST_LIMITS.defaultLimit): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > LIST_LIMITS.maxLimit) {
    throw new FollowUpServerError({
      code: 'invalid_limit',
      message: `limit must be an integer from 1 to ${LIST_LIMITS.maxLimit}.`,
    });
  }
  return limit;
}

/**
 * Reads one page of the audit log, oldest first. Walk it by passing each page's `nextCursor` back
 * until it is `null`: every entry comes exactly once, even while new entries are written (they
 * appear at the end of the walk). An unreadable cursor throws `invalid_cursor`; a limit outside
 * 1 to 200 throws `invalid_limit`.
 *
 * @example
 * ```ts
 * let cursor: string | undefined;
 * do {
 *   const page = await listAuditEntries(database, { limit: 200, cursor });
 *   for (const entry of page.entries) console.log(entry.action);
 *   cursor = page.nextCursor ?? undefined;
 * } while (cursor);
 * ```
 */
export async function listAuditEntries(
  database: Queryable,
  options: ListAuditEntriesOptions = {},
): Promise<AuditPage> {
  const limit = checkedLimit(options.limit);
  let after: ChangePosition = { xid: '0', seq: '0' };
  if (options.cursor !== undefined) {
    const position = decodeAuditCursor(options.cursor);
    if (position === undefined) {
      throw new FollowUpServerError({
        code: 'invalid_cursor',
        message: 'cursor is not a nextCursor of this audit log.',
      });
    }
    after = position;
  }
  // One row more than asked tells whether another page exists, without a count. Only entries of
  // transactions that have ended: one that commits later takes its place after this page's.
  const rows = await readAuditEntriesAfter(database, { after, limit: limit + 1 });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    entries: page.map((row) => row.entry),
    nextCursor: rows.length > limit && last ? encodeAuditCursor(last.position) : null,
  };
}

/** Options of {@link listAuditEntriesNewestFirst}. */
export interface ListRecentAuditEntriesOptions {
  /** Entries per page, 1 to 200; defaults to 50. */
  limit?: number;
  /** The `nextCursor` of the previous page (of this same newest-first walk). */
  cursor?: string;
  /** Only entries of this action, such as `token.revoked`. */
  action?: string;
  /**
   * Only entries of this actor: a type (`user`, `service_account`, `operator`, `system`) or an
   * id (`usr_…`, `sa_…`).
   */
  actor?: string;
}

/**
 * Reads one page of the audit log newest first (the web application's Audit log page), filtered
 * by action and actor. Its cursors are its own: pass each page's `nextCursor` back to this
 * function. An unreadable cursor throws `invalid_cursor`; a limit outside 1 to 200
 * `invalid_limit`.
 *
 * @example
 * ```ts
 * const page = await listAuditEntriesNewestFirst(database, { action: 'token.revoked' });
 * ```
 */
export async function listAuditEntriesNewestFirst(
  database: Queryable,
  options: ListRecentAuditEntriesOptions = {},
): Promise<AuditPage> {
  const limit = checkedLimit(options.limit);
  let before: string | null = null;
  if (options.cursor !== undefined) {
    const seq = decodeRecentAuditCursor(options.cursor);
    if (seq === undefined) {
      throw new FollowUpServerError({
        code: 'invalid_cursor',
        message: 'cursor is not a nextCursor of this audit log page.',
      });
    }
    before = seq;
  }
  const actor = options.actor || undefined;
  const actorType = actor !== undefined && actorTypes.has(actor) ? actor : null;
  const actorId = actor !== undefined && actorType === null ? actor : null;
  const rows = await readAuditEntriesBefore(database, {
    beforeSeq: before,
    action: options.action || null,
    actorType,
    actorId,
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    entries: page.map((row) => row.entry),
    nextCursor: rows.length > limit && last ? encodeRecentAuditCursor(last.position.seq) : null,
  };
}

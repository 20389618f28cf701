import { LIST_LIMITS } from '@followup/sdk';
import type { Clock } from '../clock.js';
import { FollowUpServerError } from '../errors.js';
import type { IdGenerator } from '../ids.js';
import {
  type ChangePosition,
  FINISHED_TRANSACTIONS_BOUND,
  LEGACY_CHANGE_XID,
  parseChangePosition,
} from '../storage/change-order.js';
import type { Queryable } from '../storage/database.js';
import { isBigintText } from '../storage/integer-text.js';

/** Who did an audited action. */
export interface AuditActor {
  /**
   * A service account through the API, a person signed in to the web application (or using its
   * session cookie on `/api`), an operator through the CLI, or the server itself.
   */
  type: 'service_account' | 'user' | 'operator' | 'system';
  /** The service account's `sa_…` or the user's `usr_…` id. */
  id?: string;
}

/** What an audited action was done to. */
export interface AuditTarget {
  /** The kind of record, such as `token` or `contact`. */
  type: string;
  /** The record's id. */
  id: string;
}

/** One entry of the audit log, as the API returns it. */
export interface AuditEntry {
  /** `aud_…` */
  id: string;
  /** When it happened, ISO 8601 UTC. */
  occurredAt: string;
  /** What happened, such as `token.issued`, `token.revoked` or `contact.deleted`. */
  action: string;
  /** Who did it. */
  actor: AuditActor;
  /** What it was done to. */
  target: AuditTarget;
  /** Details of the action; never a secret, a token or a request body. */
  metadata: Record<string, unknown>;
}

/** What to record with {@link recordAuditEntry}. */
export interface NewAuditEntry {
  /** What happened, such as `token.revoked`. */
  action: string;
  /** Who did it. */
  actor: AuditActor;
  /** What it was done to. */
  target: AuditTarget;
  /** Details; never a secret, a token or a request body. */
  metadata?: Record<string, unknown>;
}

/** The clock and id generator that audit writes use. */
export interface AuditDependencies {
  /** Gives `occurredAt`. */
  clock: Clock;
  /** Gives the `aud_…` id. */
  newId: IdGenerator;
}

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
  const params: unknown[] = [];
  const part = auditEntryPart(entry, dependencies, (value) => {
    params.push(value);
    return `$${params.length}`;
  });
  await queryable.query(`WITH ${part.ctes} SELECT 1`, params);
  return part.entry;
}

/**
 * @internal An audit entry as part of a statement (see {@link recordAuditEntry}, and
 * `recordChange`, which writes it with an outbox event in one statement): a common table
 * expression that inserts the row. `parameter` adds a value to the statement's parameters and
 * answers its placeholder.
 */
export function auditEntryPart(
  entry: NewAuditEntry,
  dependencies: AuditDependencies,
  parameter: (value: unknown) => string,
): { entry: AuditEntry; ctes: string } {
  const id = dependencies.newId('aud');
  // An ISO string, as the parameter too: `pg` turns a Date into text the slow way.
  const occurredAt = new Date(dependencies.clock.now()).toISOString();
  const metadata = entry.metadata ?? {};
  const ctes = `audit_entry AS (
       INSERT INTO audit_entries
         (id, occurred_at, action, actor_type, actor_id, target_type, target_id, metadata)
       VALUES (${[
         id,
         occurredAt,
         entry.action,
         entry.actor.type,
         entry.actor.id ?? null,
         entry.target.type,
         entry.target.id,
         JSON.stringify(metadata),
       ]
         .map(parameter)
         .join(', ')}))`;
  return {
    entry: {
      id,
      occurredAt,
      action: entry.action,
      actor: entry.actor.id === undefined ? { type: entry.actor.type } : { ...entry.actor },
      target: { ...entry.target },
      metadata,
    },
    ctes,
  };
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

interface AuditRow {
  cursor_xid?: string;
  seq: string;
  id: string;
  occurred_at: string;
  action: string;
  actor_type: AuditActor['type'];
  actor_id: string | null;
  target_type: string;
  target_id: string;
  metadata: Record<string, unknown>;
}

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
  const { rows } = await database.query<AuditRow>(
    // Not `AS xid`: ORDER BY would then sort by the text, 1000 before 999.
    `SELECT xid::text AS cursor_xid, seq, id, occurred_at, action, actor_type, actor_id,
            target_type, target_id, metadata
       FROM audit_entries
      WHERE (xid, seq) > ($1::xid8, $2::bigint) AND xid < ${FINISHED_TRANSACTIONS_BOUND}
      ORDER BY xid, seq LIMIT $3`,
    [after.xid, after.seq, limit + 1],
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    entries: page.map(toAuditEntry),
    nextCursor:
      rows.length > limit && last
        ? encodeAuditCursor({ xid: last.cursor_xid ?? LEGACY_CHANGE_XID, seq: String(last.seq) })
        : null,
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

const recentCursorPrefix = 'audit:v1:before:';
const actorTypes = new Set(['service_account', 'user', 'operator', 'system']);

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
  const { rows } = await database.query<AuditRow>(
    `SELECT seq, id, occurred_at, action, actor_type, actor_id, target_type, target_id, metadata
       FROM audit_entries
      WHERE ($1::bigint IS NULL OR seq < $1::bigint)
        AND ($2::text IS NULL OR action = $2)
        AND ($3::text IS NULL OR actor_type = $3)
        AND ($4::text IS NULL OR actor_id = $4)
      ORDER BY seq DESC LIMIT $5`,
    [before, options.action || null, actorType, actorId, limit + 1],
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    entries: page.map(toAuditEntry),
    nextCursor: rows.length > limit && last ? encodeRecentAuditCursor(String(last.seq)) : null,
  };
}

function toAuditEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    occurredAt: row.occurred_at,
    action: row.action,
    actor:
      row.actor_id === null ? { type: row.actor_type } : { type: row.actor_type, id: row.actor_id },
    target: { type: row.target_type, id: row.target_id },
    metadata: row.metadata,
  };
}

import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import {
  type ChangePosition,
  FINISHED_TRANSACTIONS_BOUND,
  LEGACY_CHANGE_XID,
} from '../storage/change-order.js';
import type { Queryable } from '../storage/database.js';
import { createSqlParameters, type SqlParameters, type SqlPart, statementOf } from './sql-part.js';

// The audit log's types live with its statements; audit/audit-log.ts re-exports them.

/** Who did an audited action. */
export interface AuditActor {
  /**
   * A service account through the API, a person signed in to the web application (or using its
   * session cookie on `/api`), an operator through the CLI, the server itself, or a subscriber
   * through the subscriber portal (`portal`).
   */
  type: 'service_account' | 'user' | 'operator' | 'system' | 'portal';
  /** The service account's `sa_…` or the user's `usr_…` id. */
  id?: string;
  /** The subscriber key of a `portal` actor (stored in the entry's `actor_id`). */
  subscriber?: string;
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

/** What to record with `recordAuditEntry`. */
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

/**
 * @internal An audit entry as part of a statement (see `recordAuditEntry`, and
 * `resourceCreate`, which writes it with its row and outbox event in one statement): a common table
 * expression that inserts the row. Its values go to `parameters`.
 */
export function auditEntryPart(
  entry: NewAuditEntry,
  dependencies: AuditDependencies,
  parameters: SqlParameters,
): SqlPart & { entry: AuditEntry } {
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
         entry.actor.id ?? entry.actor.subscriber ?? null,
         entry.target.type,
         entry.target.id,
         JSON.stringify(metadata),
       ]
         .map((value) => parameters.add(value))
         .join(', ')}))`;
  return {
    entry: {
      id,
      occurredAt,
      action: entry.action,
      actor:
        entry.actor.id === undefined && entry.actor.subscriber === undefined
          ? { type: entry.actor.type }
          : { ...entry.actor },
      target: { ...entry.target },
      metadata,
    },
    ctes,
    // A statement of this part alone has nothing to answer.
    select: 'SELECT 1',
  };
}

/** @internal Inserts an audit entry by itself; answers it as the API returns it. */
export async function insertAuditEntry(
  queryable: Queryable,
  entry: NewAuditEntry,
  dependencies: AuditDependencies,
): Promise<AuditEntry> {
  const parameters = createSqlParameters();
  const part = auditEntryPart(entry, dependencies, parameters);
  await queryable.query(statementOf(part), parameters.values);
  return part.entry;
}

/** @internal An audit entry read back, with the position the next page starts after. */
export interface StoredAuditEntry {
  entry: AuditEntry;
  /** The entry's change position (`xid` is the legacy one for entries without). */
  position: ChangePosition;
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

/**
 * @internal At most `limit` entries after `after`, oldest first, only of transactions that have
 * ended: one that commits later takes its place after these.
 */
export async function readAuditEntriesAfter(
  database: Queryable,
  read: { after: ChangePosition; limit: number },
): Promise<StoredAuditEntry[]> {
  const { rows } = await database.query<AuditRow>(
    // Not `AS xid`: ORDER BY would then sort by the text, 1000 before 999.
    `SELECT xid::text AS cursor_xid, seq, id, occurred_at, action, actor_type, actor_id,
            target_type, target_id, metadata
       FROM audit_entries
      WHERE (xid, seq) > ($1::xid8, $2::bigint) AND xid < ${FINISHED_TRANSACTIONS_BOUND}
      ORDER BY xid, seq LIMIT $3`,
    [read.after.xid, read.after.seq, read.limit],
  );
  return rows.map(toStoredAuditEntry);
}

/** @internal Filters of {@link readAuditEntriesBefore}; `null` is no filter. */
export interface RecentAuditEntriesRead {
  /** Only entries before this `seq`. */
  beforeSeq: string | null;
  action: string | null;
  actorType: string | null;
  actorId: string | null;
  limit: number;
}

/** @internal At most `limit` entries, newest first, filtered. */
export async function readAuditEntriesBefore(
  database: Queryable,
  read: RecentAuditEntriesRead,
): Promise<StoredAuditEntry[]> {
  const { rows } = await database.query<AuditRow>(
    `SELECT seq, id, occurred_at, action, actor_type, actor_id, target_type, target_id, metadata
       FROM audit_entries
      WHERE ($1::bigint IS NULL OR seq < $1::bigint)
        AND ($2::text IS NULL OR action = $2)
        AND ($3::text IS NULL OR actor_type = $3)
        AND ($4::text IS NULL OR actor_id = $4)
      ORDER BY seq DESC LIMIT $5`,
    [read.beforeSeq, read.action, read.actorType, read.actorId, read.limit],
  );
  return rows.map(toStoredAuditEntry);
}

function toStoredAuditEntry(row: AuditRow): StoredAuditEntry {
  return {
    entry: toAuditEntry(row),
    position: { xid: row.cursor_xid ?? LEGACY_CHANGE_XID, seq: String(row.seq) },
  };
}

function toAuditEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    occurredAt: row.occurred_at,
    action: row.action,
    actor:
      row.actor_id === null
        ? { type: row.actor_type }
        : row.actor_type === 'portal'
          ? { type: 'portal', subscriber: row.actor_id }
          : { type: row.actor_type, id: row.actor_id },
    target: { type: row.target_type, id: row.target_id },
    metadata: row.metadata,
  };
}

/**
 * @internal The newest entry of `action` done to a target, or `undefined` (none, or pruned by
 * retention): such as when an endpoint's secret was last rotated. Read newest first, so an
 * entry of the last days is found without reading the older ones.
 */
export async function findLatestAuditEntry(
  database: Queryable,
  read: { action: string; target: AuditTarget },
): Promise<AuditEntry | undefined> {
  const { rows } = await database.query<AuditRow>(
    `SELECT seq, id, occurred_at, action, actor_type, actor_id, target_type, target_id, metadata
       FROM audit_entries
      WHERE action = $1 AND target_type = $2 AND target_id = $3
      ORDER BY seq DESC LIMIT 1`,
    [read.action, read.target.type, read.target.id],
  );
  return rows[0] ? toAuditEntry(rows[0]) : undefined;
}

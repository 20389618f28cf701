import type { WebhookEventKind } from '@followup/sdk';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import { ProblemError } from '../problem-error.js';
import { changeAssignments } from '../storage/change-order.js';
import type { Database, Queryable } from '../storage/database.js';
import { type AuditActor, insertAuditEntry } from './audit-store.js';
import { changedAttributes, recordOutboxEvent } from './outbox-store.js';
import { type CreatedRecord, type CreateRecordRequest, resourceCreate } from './resource-create.js';
import { columnValue, itemColumns, itemFromRow } from './resource-rows.js';
import type { ResourceTable } from './resource-table.js';

/**
 * @internal The store of one resource family (contacts, deals, sequences, campaigns, users):
 * the only code that writes the SQL of its table. Each function takes the database or the
 * transaction to run in first. After a commit, tell `events.onOutboxEvent` when a create was
 * `pending`, an update `announced`, or a delete ran on a family with events.
 */
export interface ResourceStore {
  /** How the family is stored. */
  table: ResourceTable;
  /** The select list of a record's columns. */
  columns: string;
  /** A row of `columns` as the API returns it. */
  toItem: (row: Record<string, unknown>) => Record<string, unknown>;
  /** The record with this id, or `undefined`. */
  readRecord: (queryable: Queryable, id: string) => Promise<Record<string, unknown> | undefined>;
  /** A limit/offset page, ordered by `createdAt, id`. */
  listRecords: (
    queryable: Queryable,
    page: { limit: number; offset: number },
  ) => Promise<Record<string, unknown>[]>;
  /** How many records there are. */
  countRecords: (queryable: Queryable) => Promise<number>;
  /** What `POST <path>` does: see {@link resourceCreate}, the one create of every surface. */
  createRecord: (database: Database, request: CreateRecordRequest) => Promise<CreatedRecord>;
  /**
   * What `PATCH <path>/:id` does, in the caller's transaction: the fields of `body` change, with
   * the audit entry, the `<name>.updated` event (when a value changed: `announced`) and
   * `afterUpdate`; an empty change answers the record unchanged. Throws `not_found` for an
   * unknown id.
   */
  updateRecord: (
    transaction: Queryable,
    change: { actor: AuditActor; id: string; body: Record<string, unknown> },
  ) => Promise<{ item: Record<string, unknown>; announced: boolean }>;
  /**
   * What `DELETE <path>/:id` does, in the caller's transaction: `beforeDelete` (a contact's deals
   * go first), the delete, the tombstone where the family keeps them, the `<name>.deleted` audit
   * entry where audited and the `<name>.deleted` event. Throws `not_found` for an unknown id;
   * answers the record as it was. The route and a contact's erasure share it.
   */
  deleteRecord: (
    transaction: Queryable,
    change: { actor: AuditActor; id: string },
  ) => Promise<Record<string, unknown>>;
}

/** @internal The 404 `not_found` of a resource family's unknown id. */
export function recordNotFound(table: Pick<ResourceTable, 'name'>, id: string): ProblemError {
  return new ProblemError({
    code: 'not_found',
    detail: `No ${table.name} has the id ${JSON.stringify(id)}.`,
  });
}

/**
 * @internal The {@link ResourceStore} of one resource family. Statement texts are made once per
 * store, so make one store per family and keep it.
 */
export function resourceStore(
  table: ResourceTable,
  dependencies: { clock: Clock; newId: IdGenerator },
): ResourceStore {
  const { clock, newId } = dependencies;
  const { name, collection, events } = table;
  const fieldEntries = Object.entries(table.fields);
  const columns = itemColumns(table);
  const toItem = (row: Record<string, unknown>) => itemFromRow(table, row);
  const eventKind = (change: 'updated' | 'deleted') => `${name}.${change}` as WebhookEventKind;

  async function readRecord(queryable: Queryable, id: string) {
    const { rows } = await queryable.query(`SELECT ${columns} FROM ${collection} WHERE id = $1`, [
      id,
    ]);
    const row = rows[0];
    return row ? toItem(row) : undefined;
  }

  async function listRecords(queryable: Queryable, page: { limit: number; offset: number }) {
    const { rows } = await queryable.query(
      `SELECT ${columns} FROM ${collection} ORDER BY created_at, id LIMIT $1 OFFSET $2`,
      [page.limit, page.offset],
    );
    return rows.map(toItem);
  }

  async function countRecords(queryable: Queryable) {
    const { rows } = await queryable.query<{ count: string }>(
      `SELECT count(*) AS count FROM ${collection}`,
    );
    return Number(rows[0]?.count ?? 0);
  }

  async function updateRecord(
    transaction: Queryable,
    change: { actor: AuditActor; id: string; body: Record<string, unknown> },
  ) {
    const { actor, id, body } = change;
    const assignments: string[] = [];
    const values: unknown[] = [id];
    const fields: string[] = [];
    for (const [key, field] of fieldEntries) {
      if (!(key in body) || body[key] === undefined) continue;
      values.push(columnValue(field, body[key]));
      assignments.push(`${field.column} = $${values.length}`);
      fields.push(key);
    }
    if (assignments.length === 0) {
      // Nothing to change: answer the record as it is, without touching updatedAt.
      const item = await readRecord(transaction, id);
      if (!item) throw recordNotFound(table, id);
      return { item, announced: false };
    }
    if (table.changes) assignments.push(changeAssignments(table.changes.order));
    if (table.updatedAt) {
      values.push(new Date(clock.now()));
      assignments.push(`updated_at = $${values.length}`);
    }
    // The record before the change, locked, for the event's previousAttributes.
    const before = events
      ? (
          await transaction.query(`SELECT ${columns} FROM ${collection} WHERE id = $1 FOR UPDATE`, [
            id,
          ])
        ).rows[0]
      : undefined;
    const { rows } = await transaction.query(
      `UPDATE ${collection} SET ${assignments.join(', ')} WHERE id = $1 RETURNING ${columns}`,
      values,
    );
    const row = rows[0];
    if (!row) throw recordNotFound(table, id);
    if (table.audited.updated) {
      await insertAuditEntry(
        transaction,
        { action: `${name}.updated`, actor, target: { type: name, id }, metadata: { fields } },
        { clock, newId },
      );
    }
    const item = toItem(row);
    await table.afterUpdate?.({ transaction, item, accountId: actor.id ?? '', actor, fields });
    const previousAttributes =
      before === undefined ? undefined : changedAttributes(toItem(before), item);
    if (previousAttributes === undefined) return { item, announced: false };
    await recordOutboxEvent(
      transaction,
      { event: eventKind('updated'), data: item, previousAttributes },
      { clock, newId },
    );
    return { item, announced: true };
  }

  async function deleteRecord(transaction: Queryable, change: { actor: AuditActor; id: string }) {
    const { actor, id } = change;
    const metadata = (await table.beforeDelete?.(transaction, id)) ?? {};
    const deleted = await transaction.query(
      `DELETE FROM ${collection} WHERE id = $1 RETURNING ${columns}`,
      [id],
    );
    const row = deleted.rows[0];
    if (!row) throw recordNotFound(table, id);
    const tombstones = table.changes?.tombstones;
    if (tombstones) {
      await transaction.query(`INSERT INTO ${tombstones} (id, deleted_at) VALUES ($1, $2)`, [
        id,
        new Date(clock.now()),
      ]);
    }
    if (table.audited.deleted) {
      await insertAuditEntry(
        transaction,
        { action: `${name}.deleted`, actor, target: { type: name, id }, metadata },
        { clock, newId },
      );
    }
    const item = toItem(row);
    if (events) {
      await recordOutboxEvent(
        transaction,
        { event: eventKind('deleted'), data: item },
        { clock, newId },
      );
    }
    return item;
  }

  return {
    table,
    columns,
    toItem,
    readRecord,
    listRecords,
    countRecords,
    createRecord: resourceCreate(table, dependencies),
    updateRecord,
    deleteRecord,
  };
}

import type { WebhookEventKind } from '@followup/sdk';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { Database, Queryable } from '../storage/database.js';
import {
  type AuditActor,
  auditEntryPart,
  insertAuditEntry,
  type NewAuditEntry,
} from './audit-store.js';
import { recordChange } from './audited-change-store.js';
import { outboxEventPart, recordOutboxEvent } from './outbox-store.js';
import { columnValue, itemColumns, itemFromRow } from './resource-rows.js';
import type { ResourceTable } from './resource-table.js';
import { createSqlParameters } from './sql-part.js';

/** @internal What {@link resourceCreate}'s `createRecord` is given. */
export interface CreateRecordRequest {
  /** Who creates, as the audit log records it. */
  actor: AuditActor;
  /** The create body, validated. */
  body: Record<string, unknown>;
  /**
   * The caller's transaction, when the create shares one (a contact batch); without it the
   * create commits on its own.
   */
  transaction?: Queryable;
}

/** @internal What a create answers. */
export interface CreatedRecord {
  /** The record as the API returns it. */
  item: Record<string, unknown>;
  /**
   * Whether its event, where the resource announces one, may wait for a delivery worker: false
   * when a one-statement create found that no endpoint takes it (it was written dispatched, see
   * docs/decisions.md).
   */
  pending: boolean;
}

/**
 * @internal The create of one resource family: `createRecord(database, request)` inserts the
 * row, its `<name>.created` audit entry where audited, its `<name>.created` event where announced
 * and runs `afterCreate`. Given a `transaction`, it runs in it; otherwise it commits on its own,
 * as one `WITH` statement where nothing else belongs in its transaction (see
 * docs/decisions.md, "A create is one statement…") and as a transaction of several statements
 * otherwise. The caller tells `onOutboxEvent` after the commit when `pending`.
 */
export function resourceCreate(
  table: ResourceTable,
  dependencies: { clock: Clock; newId: IdGenerator },
): (database: Database, request: CreateRecordRequest) => Promise<CreatedRecord> {
  const { clock, newId } = dependencies;
  const { name, events } = table;
  const fieldEntries = Object.entries(table.fields);
  const columns = itemColumns(table);
  const eventKind = `${name}.created` as WebhookEventKind;
  const toItem = (row: Record<string, unknown>) => itemFromRow(table, row);
  const auditEntryOf = (actor: AuditActor, id: string, fields: string[]): NewAuditEntry => ({
    action: `${name}.created`,
    actor,
    target: { type: name, id },
    metadata: { fields },
  });

  // The insert of a create, its text made once: the id, the fields, then created_at (and
  // updated_at).
  const insertStatement = `INSERT INTO ${table.collection} (${columns}) VALUES (${Array.from(
    { length: 1 + fieldEntries.length + (table.updatedAt ? 2 : 1) },
    (_, index) => `$${index + 1}`,
  ).join(', ')}) RETURNING ${columns}`;

  /**
   * The parameters of {@link insertStatement} for `body`, with a new id and the clock's time;
   * `sent`, the row they make by column (what the insert reads back for text, integer and
   * timestamp columns); and `fields`, the names of the fields the body gave.
   */
  function insertOf(body: Record<string, unknown>): {
    id: string;
    values: unknown[];
    sent: Record<string, unknown>;
    fields: string[];
  } {
    const id = newId(table.idPrefix);
    const values: unknown[] = [id];
    const sent: Record<string, unknown> = { id };
    for (const [key, field] of fieldEntries) {
      const value = columnValue(field, body[key] ?? table.defaults?.[key]);
      values.push(value);
      sent[field.column] = value;
    }
    const fields = Object.keys(body).filter((key) => body[key] !== undefined);
    // An ISO string, as the parameter too: `pg` turns a Date into text the slow way.
    const now = new Date(clock.now()).toISOString();
    values.push(now);
    sent.created_at = now;
    if (table.updatedAt) {
      values.push(now);
      sent.updated_at = now;
    }
    return { id, values, sent, fields };
  }

  /** A create in `transaction`: the insert, its audit entry, its event and `afterCreate`. */
  async function createInTransaction(
    transaction: Queryable,
    actor: AuditActor,
    body: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const { id, values, fields } = insertOf(body);
    const { rows } = await transaction.query(insertStatement, values);
    const created = toItem(rows[0] as Record<string, unknown>);
    const event = { event: eventKind, data: created };
    if (events && table.audited.created) {
      // The entry and the event in one round trip.
      await recordChange(
        transaction,
        { audit: auditEntryOf(actor, id, fields), event },
        { clock, newId },
      );
    } else {
      if (table.audited.created) {
        await insertAuditEntry(transaction, auditEntryOf(actor, id, fields), { clock, newId });
      }
      if (events) await recordOutboxEvent(transaction, event, { clock, newId });
    }
    await table.afterCreate?.({
      transaction,
      item: created,
      accountId: actor.id ?? '',
      actor,
      fields,
    });
    return created;
  }

  // A create as one statement, in a transaction of its own: the insert, its audit entry and its
  // event in one `WITH`, one round trip instead of up to four (BEGIN, the insert, the entry and
  // the event, COMMIT). Only where nothing else belongs in its transaction (no `afterCreate`) and
  // where the event's data, made from the values sent before the statement runs, is what the row
  // reads back: text, integer and timestamp columns (a JSON column reads back normalized).
  const createsInOneStatement =
    table.afterCreate === undefined && fieldEntries.every(([, field]) => field.type !== 'json');

  /**
   * {@link createInTransaction} in one statement, committed on its own (see
   * `createsInOneStatement`): the same row, audit entry and event, with the same ids and times in
   * the same order.
   */
  let oneStatementText: string | undefined;
  async function createInOneStatement(
    database: Database,
    actor: AuditActor,
    body: Record<string, unknown>,
  ): Promise<CreatedRecord> {
    const { id, values, sent, fields } = insertOf(body);
    const parameters = createSqlParameters(values);
    // The audit entry's and the event's inserts run whether or not the final SELECT reads them.
    const ctes = [`inserted AS (${insertStatement})`];
    let pendingColumn = '';
    if (table.audited.created) {
      ctes.push(auditEntryPart(auditEntryOf(actor, id, fields), { clock, newId }, parameters).ctes);
    }
    if (events) {
      const event = outboxEventPart(
        { event: eventKind, data: toItem(sent) },
        { clock, newId },
        parameters,
      );
      ctes.push(event.ctes);
      // Whether an endpoint takes the event (see outboxEventPart), to wake the workers.
      pendingColumn = `, (${event.select}) AS event_pending`;
    }
    // The text depends on this resource alone (the parts number their placeholders in order), so
    // the first one made is kept and sent again: the storage layer finds its prepared statement
    // by text, and a string it has seen before is found without hashing 2 KB anew.
    oneStatementText ??= `WITH ${ctes.join(', ')} SELECT inserted.*${pendingColumn} FROM inserted`;
    const { rows } = await database.query<Record<string, unknown>>(
      oneStatementText,
      parameters.values,
    );
    const row = rows[0] as Record<string, unknown>;
    return { item: toItem(row), pending: row.event_pending === true };
  }

  return async (database, { actor, body, transaction }) => {
    if (transaction !== undefined) {
      return { item: await createInTransaction(transaction, actor, body), pending: true };
    }
    // A create in one statement knows whether an endpoint takes its event: when none does, the
    // event was written dispatched and there is nothing to wake the workers for.
    if (createsInOneStatement) return createInOneStatement(database, actor, body);
    const item = await database.transaction((inside) => createInTransaction(inside, actor, body));
    return { item, pending: true };
  };
}

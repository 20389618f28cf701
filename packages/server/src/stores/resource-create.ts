import type { WebhookEventKind } from '@followup/sdk';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { Database, Queryable } from '../storage/database.js';
import { type AuditActor, auditEntryPart, type NewAuditEntry } from './audit-store.js';
import { outboxEventPart } from './outbox-store.js';
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
   * when no endpoint takes it (it was written dispatched, see docs/decisions.md).
   */
  pending: boolean;
}

/**
 * @internal The create of one resource family: `createRecord(database, request)` inserts the
 * row, its `<name>.created` audit entry where audited and its `<name>.created` event where
 * announced, in one `WITH` statement (see docs/decisions.md, "A create is one statement"), then
 * runs `afterCreate`. Given a `transaction`, it runs in it; otherwise the statement commits on
 * its own, in a transaction with `afterCreate` where the resource has one. The caller tells
 * `onOutboxEvent` after the commit when `pending`.
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
   * `sent`, the row they make by column, as the insert reads it back (a JSON column as its
   * value: the event stores it as `jsonb`, normalized as the column is); and `fields`, the names
   * of the fields the body gave.
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
      const value = body[key] ?? table.defaults?.[key];
      const parameter = columnValue(field, value);
      values.push(parameter);
      sent[field.column] = field.type === 'json' ? (value ?? null) : parameter;
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

  // Every create is this one statement: the insert, its audit entry and its event in one `WITH`,
  // one round trip instead of up to three (the insert, the entry, the event). The event's data is
  // made from the values sent before the statement runs, which is what the row reads back (see
  // `insertOf`). Its text depends on this resource alone (the parts number their placeholders in
  // order), and on whether its event keeps a trace context (see outboxEventPart), so the first
  // one made of each is kept and sent again: the storage layer finds its prepared statement by
  // text, and a string it has seen before is found without hashing 2 KB anew.
  const createTexts: { traced?: string; untraced?: string } = {};
  async function insertCreated(
    queryable: Queryable,
    actor: AuditActor,
    body: Record<string, unknown>,
  ): Promise<CreatedRecord & { fields: string[] }> {
    const { id, values, sent, fields } = insertOf(body);
    const parameters = createSqlParameters(values);
    // The audit entry's and the event's inserts run whether or not the final SELECT reads them.
    const ctes = [`inserted AS (${insertStatement})`];
    let pendingColumn = '';
    let text: 'traced' | 'untraced' = 'untraced';
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
      if (event.traced) text = 'traced';
    }
    const createText =
      createTexts[text] ??
      `WITH ${ctes.join(', ')} SELECT inserted.*${pendingColumn} FROM inserted`;
    createTexts[text] = createText;
    const { rows } = await queryable.query<Record<string, unknown>>(createText, parameters.values);
    const row = rows[0] as Record<string, unknown>;
    return { item: toItem(row), pending: row.event_pending === true, fields };
  }

  /** The create and `afterCreate` in `transaction`. */
  async function createInTransaction(
    transaction: Queryable,
    actor: AuditActor,
    body: Record<string, unknown>,
  ): Promise<CreatedRecord> {
    const { item, pending, fields } = await insertCreated(transaction, actor, body);
    await table.afterCreate?.({ transaction, item, accountId: actor.id ?? '', actor, fields });
    return { item, pending };
  }

  return async (database, { actor, body, transaction }) => {
    if (transaction !== undefined) return createInTransaction(transaction, actor, body);
    // Nothing else to run: the statement commits on its own, without BEGIN and COMMIT.
    if (table.afterCreate === undefined) {
      const { item, pending } = await insertCreated(database, actor, body);
      return { item, pending };
    }
    return database.transaction((inside) => createInTransaction(inside, actor, body));
  };
}

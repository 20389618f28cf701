import {
  boundedText,
  countSchema,
  INPUT_LIMITS,
  type ProblemCode,
  type WebhookEventKind,
} from '@followup/sdk';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  type AuditActor,
  auditEntryPart,
  type NewAuditEntry,
  recordAuditEntry,
} from '../audit/audit-log.js';
import type { Capability } from '../capabilities.js';
import type { Clock } from '../clock.js';
import type { IdGenerator, IdPrefix } from '../ids.js';
import { changedAttributes, outboxEventPart, recordOutboxEvent } from '../outbox/outbox.js';
import { recordChange } from '../outbox/record-change.js';
import type { RequireCapability } from '../plugins/authentication.js';
import { problemResponses } from '../plugins/openapi.js';
import { ProblemError } from '../plugins/problem.js';
import { type ChangeOrder, changeAssignments } from '../storage/change-order.js';
import type { Database, Queryable } from '../storage/database.js';
import {
  type KeysetListFilters,
  type KeysetListQuery,
  keysetListQuery,
  listPage,
} from './keyset-list.js';
import { offsetListQuery } from './list-query.js';

/** @internal How one API field of a resource is stored. */
export interface ResourceField {
  /** The column. */
  column: string;
  /** `text` (default), `integer` (a `bigint` column, read back as a number) or `json`. */
  type?: 'text' | 'integer' | 'json';
  /** Left out of the API object while the column is null. */
  optional?: boolean;
}

/** What a route handler of a resource may do inside the transaction of a change. */
export interface ResourceChange {
  /** The transaction the change runs in. */
  transaction: Queryable;
  /** The record as the API returns it, after the change. */
  item: Record<string, unknown>;
  /** The id of who made the change: the service account's `sa_…` or the user's `usr_…`. */
  accountId: string;
  /** Who made the change, as the audit log records it. */
  actor: AuditActor;
  /** The fields the request set. */
  fields: string[];
}

/**
 * @internal The records of one resource family, for routes beyond the usual ones (the contact
 * change feed, the contact batch): how rows read, and the create and update every surface
 * shares. After a commit, tell `events.onOutboxEvent` when a create or an `announced` update
 * wrote an event.
 */
export interface ResourceRecords {
  /** The table. */
  table: string;
  /** The select list of a record's columns. */
  columns: string;
  /** A row of `columns` as the API returns it. */
  toItem: (row: Record<string, unknown>) => Record<string, unknown>;
  /** What `POST <path>` does, in the caller's transaction. */
  create: (
    transaction: Queryable,
    actor: AuditActor,
    body: Record<string, unknown>,
  ) => Promise<{ item: Record<string, unknown> }>;
  /** What `PATCH <path>/:id` does, in the caller's transaction. */
  update: (
    transaction: Queryable,
    actor: AuditActor,
    id: string,
    body: Record<string, unknown>,
  ) => Promise<{ item: Record<string, unknown>; announced: boolean }>;
}

/** @internal Everything that makes one resource family: table, fields, schemas, capabilities. */
export interface ResourceDefinition {
  /** Singular, lower case: `contact`. Names the audit target type, and the events. */
  name: string;
  /** `/api/contacts` */
  path: string;
  /** The list's key, and the table: `contacts`. */
  collection: string;
  /** The prefix of new ids. */
  idPrefix: IdPrefix;
  /** The capability of each kind of call. */
  capabilities: { read: Capability; write: Capability; delete: Capability };
  /** The SDK's schemas: one record, a list page, the create and the update bodies. */
  schemas: { item: z.ZodType; list: z.ZodType; create: z.ZodType; update: z.ZodType };
  /** The API fields other than `id`, `createdAt` and `updatedAt`, in the API's order. */
  fields: Readonly<Record<string, ResourceField>>;
  /** Values of fields a create may leave out, such as `lifecycle: 'LEAD'`. */
  defaults?: Readonly<Record<string, unknown>>;
  /** Whether records carry `updatedAt` (users do not). */
  updatedAt: boolean;
  /** Whether `GET <path>/count` exists (v1.1). */
  count: boolean;
  /**
   * Foreign keys of the create body, by constraint name: a value that names no record is a 400
   * `validation_failed` on that field.
   */
  references?: Readonly<Record<string, { field: string; message: string }>>;
  /** Unique columns, by constraint name: a duplicate is a 409 `conflict`. */
  unique?: Readonly<Record<string, { field: string; message: string }>>;
  /**
   * Keyset lists (contacts, deals): `GET <path>` answers `nextCursor` and takes `cursor`, `sort`,
   * `updatedSince` and these filters, and refuses unknown parameters. Without it, the list is
   * limit/offset only.
   */
  list?: KeysetListFilters;
  /**
   * The rows carry `change_seq` in this change order (the order of `sort=updatedAt`); a delete
   * leaves the id in `tombstones` when given.
   */
  changes?: { order: ChangeOrder; tombstones?: string };
  /** Registers routes beyond the usual ones, with the family's {@link ResourceRecords}. */
  moreRoutes?: (app: FastifyInstance, records: ResourceRecords) => void;
  /** Which changes are written to the audit log as `<name>.<change>`. */
  audited: { created: boolean; updated: boolean; deleted: boolean };
  /**
   * Whether changes write `<name>.created`, `<name>.updated` (with `previousAttributes`, only
   * when a field's value changed) and `<name>.deleted` events into the outbox, in the change's
   * transaction. `onOutboxEvent` is told after such a change committed.
   */
  events?: { onOutboxEvent?: () => void };
  /** Runs in the transaction of a create, after the insert. */
  afterCreate?: (change: ResourceChange) => Promise<void>;
  /** Runs in the transaction of an update, after it (a user's role change ends their sessions). */
  afterUpdate?: (change: ResourceChange) => Promise<void>;
  /** Runs after a create committed. */
  afterCreateCommitted?: () => void;
  /**
   * Runs in the transaction of a delete, before the delete, with the id; returns the audit
   * entry's metadata (a contact counts the deals its deletion removes).
   */
  beforeDelete?: (transaction: Queryable, id: string) => Promise<Record<string, unknown>>;
}

// The fields of each definition as entries, made once rather than for every row of every page.
const fieldEntriesByFields = new WeakMap<object, readonly [string, ResourceField][]>();

function fieldEntries(fields: ResourceDefinition['fields']): readonly [string, ResourceField][] {
  let entries = fieldEntriesByFields.get(fields);
  if (entries === undefined) {
    entries = Object.entries(fields);
    fieldEntriesByFields.set(fields, entries);
  }
  return entries;
}

/**
 * @internal The API object of a stored row: `id`, the fields in their order (an optional one left
 * out while null), `createdAt` and, where the resource has it, `updatedAt`.
 */
export function itemFromRow(
  definition: Pick<ResourceDefinition, 'fields' | 'updatedAt'>,
  row: Record<string, unknown>,
): Record<string, unknown> {
  const item: Record<string, unknown> = { id: row.id };
  for (const [key, field] of fieldEntries(definition.fields)) {
    const value = row[field.column];
    if (value === null || value === undefined) {
      if (!field.optional) item[key] = value ?? null;
      continue;
    }
    item[key] = field.type === 'integer' ? Number(value) : value;
  }
  item.createdAt = row.created_at;
  if (definition.updatedAt) item.updatedAt = row.updated_at;
  return item;
}

/** @internal The columns of {@link itemFromRow}'s row, for a `SELECT` or `RETURNING`. */
export function itemColumns(definition: Pick<ResourceDefinition, 'fields' | 'updatedAt'>): string {
  return [
    'id',
    ...Object.values(definition.fields).map((field) => field.column),
    'created_at',
    ...(definition.updatedAt ? ['updated_at'] : []),
  ].join(', ');
}

const idParams = z.object({ id: boundedText({ min: 1, max: INPUT_LIMITS.id }) });

function notFound(definition: ResourceDefinition, id: string): ProblemError {
  return new ProblemError({
    status: 404,
    code: 'not_found',
    detail: `No ${definition.name} has the id ${JSON.stringify(id)}.`,
  });
}

function databaseErrorCode(error: unknown): { code?: string; constraint?: string } {
  if (typeof error !== 'object' || error === null) return {};
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  return {
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof constraint === 'string' ? { constraint } : {}),
  };
}

/** @internal Maps a constraint violation to the problem its request caused; others unchanged. */
function constraintProblem(definition: ResourceDefinition, error: unknown): unknown {
  const { code, constraint } = databaseErrorCode(error);
  if (constraint === undefined) return error;
  const reference = code === '23503' ? definition.references?.[constraint] : undefined;
  if (reference) {
    return new ProblemError({
      status: 400,
      code: 'validation_failed',
      detail: 'The request is not valid: see errors.',
      errors: [{ path: reference.field, message: reference.message }],
    });
  }
  const unique = code === '23505' ? definition.unique?.[constraint] : undefined;
  if (unique) {
    return new ProblemError({
      status: 409,
      code: 'conflict',
      detail: unique.message,
      errors: [{ path: unique.field, message: unique.message }],
    });
  }
  return error;
}

/**
 * @internal What `DELETE <path>/:id` does, in the caller's transaction: `beforeDelete` (a
 * contact's deals go first), the delete, the tombstone where the family keeps them, the
 * `<name>.deleted` audit entry where audited and the `<name>.deleted` event. Throws `not_found`
 * for an unknown id; answers the record as it was. The route and a contact's erasure share it;
 * the caller tells `events.onOutboxEvent` after the commit.
 */
export async function deleteRecord(
  transaction: Queryable,
  options: {
    definition: ResourceDefinition;
    actor: AuditActor;
    id: string;
    clock: Clock;
    newId: IdGenerator;
  },
): Promise<Record<string, unknown>> {
  const { definition, actor, id, clock, newId } = options;
  const metadata = (await definition.beforeDelete?.(transaction, id)) ?? {};
  const deleted = await transaction.query(
    `DELETE FROM ${definition.collection} WHERE id = $1 RETURNING ${itemColumns(definition)}`,
    [id],
  );
  const row = deleted.rows[0];
  if (!row) throw notFound(definition, id);
  const tombstones = definition.changes?.tombstones;
  if (tombstones) {
    await transaction.query(`INSERT INTO ${tombstones} (id, deleted_at) VALUES ($1, $2)`, [
      id,
      new Date(clock.now()),
    ]);
  }
  const name = definition.name;
  if (definition.audited.deleted) {
    await recordAuditEntry(
      transaction,
      { action: `${name}.deleted`, actor, target: { type: name, id }, metadata },
      { clock, newId },
    );
  }
  const item = itemFromRow(definition, row);
  if (definition.events) {
    await recordOutboxEvent(
      transaction,
      { event: `${name}.deleted` as WebhookEventKind, data: item },
      { clock, newId },
    );
  }
  return item;
}

/**
 * @internal The routes of one resource family, all behind its capabilities:
 * `GET <path>` (limit/offset list, first key the collection, order `createdAt, id`),
 * `GET <path>/count` (v1.1, when the definition says so), `GET <path>/:id`, `POST <path>` (201,
 * `Idempotency-Key`), `PATCH <path>/:id` (200) and `DELETE <path>/:id` (204). Bodies are
 * validated with the SDK's schemas, which also describe every answer in `/openapi.json`.
 */
export function resourceRoutes(
  definition: ResourceDefinition,
  options: {
    database: Database;
    clock: Clock;
    newId: IdGenerator;
    requireCapability: RequireCapability;
  },
): FastifyPluginAsync {
  const { database, clock, newId, requireCapability } = options;
  const { name, path, collection, schemas } = definition;
  const table = collection;
  const fieldEntries = Object.entries(definition.fields);
  const columns = itemColumns(definition);
  const events = definition.events;
  const eventKind = (change: 'created' | 'updated' | 'deleted') =>
    `${name}.${change}` as WebhookEventKind;
  const tag = collection.charAt(0).toUpperCase() + collection.slice(1);
  const security = [{ bearerAuth: [] }];

  function toItem(row: Record<string, unknown>): Record<string, unknown> {
    return itemFromRow(definition, row);
  }

  function toColumnValue(field: ResourceField, value: unknown): unknown {
    if (value === null || value === undefined) return null;
    return field.type === 'json' ? JSON.stringify(value) : value;
  }

  function actorOf(request: FastifyRequest): AuditActor {
    const principal = request.principal;
    if (!principal) throw new Error('A resource route ran without an authenticated principal.');
    return principal.actor;
  }

  function auditEntryOf(
    change: 'created' | 'updated' | 'deleted',
    actor: AuditActor,
    id: string,
    metadata: Record<string, unknown>,
  ): NewAuditEntry {
    return { action: `${name}.${change}`, actor, target: { type: name, id }, metadata };
  }

  async function audit(
    transaction: Queryable,
    change: 'created' | 'updated' | 'deleted',
    actor: AuditActor,
    id: string,
    metadata: Record<string, unknown>,
  ): Promise<void> {
    if (!definition.audited[change]) return;
    await recordAuditEntry(transaction, auditEntryOf(change, actor, id, metadata), {
      clock,
      newId,
    });
  }

  // The insert of a create, its text made once: the id, the fields, then created_at (and
  // updated_at).
  const insertStatement = `INSERT INTO ${table} (${columns}) VALUES (${Array.from(
    { length: 1 + fieldEntries.length + (definition.updatedAt ? 2 : 1) },
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
    const id = newId(definition.idPrefix);
    const values: unknown[] = [id];
    const sent: Record<string, unknown> = { id };
    for (const [key, field] of fieldEntries) {
      const value = toColumnValue(field, body[key] ?? definition.defaults?.[key]);
      values.push(value);
      sent[field.column] = value;
    }
    const fields = Object.keys(body).filter((key) => body[key] !== undefined);
    // An ISO string, as the parameter too: `pg` turns a Date into text the slow way.
    const now = new Date(clock.now()).toISOString();
    values.push(now);
    sent.created_at = now;
    if (definition.updatedAt) {
      values.push(now);
      sent.updated_at = now;
    }
    return { id, values, sent, fields };
  }

  /**
   * Creates a record in `transaction`: the insert, its audit entry, its `<name>.created` event
   * and `afterCreate`. The caller tells `onOutboxEvent` after the commit.
   */
  async function create(
    transaction: Queryable,
    actor: AuditActor,
    body: Record<string, unknown>,
  ): Promise<{ item: Record<string, unknown> }> {
    const { id, values, fields } = insertOf(body);
    const { rows } = await transaction.query(insertStatement, values);
    const created = toItem(rows[0] as Record<string, unknown>);
    const event = { event: eventKind('created'), data: created };
    if (events && definition.audited.created) {
      // The entry and the event in one round trip.
      await recordChange(
        transaction,
        { audit: auditEntryOf('created', actor, id, { fields }), event },
        { clock, newId },
      );
    } else {
      await audit(transaction, 'created', actor, id, { fields });
      if (events) await recordOutboxEvent(transaction, event, { clock, newId });
    }
    await definition.afterCreate?.({
      transaction,
      item: created,
      accountId: actor.id ?? '',
      actor,
      fields,
    });
    return { item: created };
  }

  // A create as one statement, in a transaction of its own: the insert, its audit entry and its
  // event in one `WITH`, one round trip instead of up to four (BEGIN, the insert, the entry and
  // the event, COMMIT). Only where nothing else belongs in its transaction (no `afterCreate`) and
  // where the event's data, made from the values sent before the statement runs, is what the row
  // reads back: text, integer and timestamp columns (a JSON column reads back normalized).
  const createsInOneStatement =
    definition.afterCreate === undefined &&
    fieldEntries.every(([, field]) => field.type !== 'json');

  /**
   * {@link create} in one statement, committed on its own (see `createsInOneStatement`): the same
   * row, audit entry and event, with the same ids and times in the same order.
   */
  let oneStatementText: string | undefined;
  async function createInOneStatement(
    actor: AuditActor,
    body: Record<string, unknown>,
  ): Promise<{ item: Record<string, unknown>; pending: boolean }> {
    const { id, values, sent, fields } = insertOf(body);
    const params = [...values];
    const parameter = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    // The audit entry's and the event's inserts run whether or not the final SELECT reads them.
    const ctes = [`inserted AS (${insertStatement})`];
    let pendingColumn = '';
    if (definition.audited.created) {
      const audit = auditEntryOf('created', actor, id, { fields });
      ctes.push(auditEntryPart(audit, { clock, newId }, parameter).ctes);
    }
    if (events) {
      const data = toItem(sent);
      const event = outboxEventPart(
        { event: eventKind('created'), data },
        { clock, newId },
        parameter,
      );
      ctes.push(event.ctes);
      // Whether an endpoint takes the event (see outboxEventPart), to wake the workers.
      pendingColumn = `, (${event.select}) AS event_pending`;
    }
    // The text depends on this resource alone (the parts number their placeholders in order), so
    // the first one made is kept and sent again: the storage layer finds its prepared statement
    // by text, and a string it has seen before is found without hashing 2 KB anew.
    oneStatementText ??= `WITH ${ctes.join(', ')} SELECT inserted.*${pendingColumn} FROM inserted`;
    const { rows } = await database.query<Record<string, unknown>>(oneStatementText, params);
    const row = rows[0] as Record<string, unknown>;
    return { item: toItem(row), pending: row.event_pending === true };
  }

  /**
   * Changes the fields of `body` in `transaction`, with its audit entry, its `<name>.updated`
   * event (when a value changed: `announced`) and `afterUpdate`; an empty change answers the
   * record unchanged. Throws `not_found` for an unknown id.
   */
  async function update(
    transaction: Queryable,
    actor: AuditActor,
    id: string,
    body: Record<string, unknown>,
  ): Promise<{ item: Record<string, unknown>; announced: boolean }> {
    const assignments: string[] = [];
    const values: unknown[] = [id];
    const fields: string[] = [];
    for (const [key, field] of fieldEntries) {
      if (!(key in body) || body[key] === undefined) continue;
      values.push(toColumnValue(field, body[key]));
      assignments.push(`${field.column} = $${values.length}`);
      fields.push(key);
    }
    if (assignments.length === 0) {
      // Nothing to change: answer the record as it is, without touching updatedAt.
      const { rows } = await transaction.query(`SELECT ${columns} FROM ${table} WHERE id = $1`, [
        id,
      ]);
      const row = rows[0];
      if (!row) throw notFound(definition, id);
      return { item: toItem(row), announced: false };
    }
    const changes = definition.changes;
    if (changes) assignments.push(changeAssignments(changes.order));
    if (definition.updatedAt) {
      values.push(new Date(clock.now()));
      assignments.push(`updated_at = $${values.length}`);
    }
    // The record before the change, locked, for the event's previousAttributes.
    const before = events
      ? (await transaction.query(`SELECT ${columns} FROM ${table} WHERE id = $1 FOR UPDATE`, [id]))
          .rows[0]
      : undefined;
    const { rows } = await transaction.query(
      `UPDATE ${table} SET ${assignments.join(', ')} WHERE id = $1 RETURNING ${columns}`,
      values,
    );
    const row = rows[0];
    if (!row) throw notFound(definition, id);
    await audit(transaction, 'updated', actor, id, { fields });
    const item = toItem(row);
    await definition.afterUpdate?.({
      transaction,
      item,
      accountId: actor.id ?? '',
      actor,
      fields,
    });
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

  const records: ResourceRecords = { table, columns, toItem, create, update };
  // Only a resource with a unique field can answer a write with 409 conflict.
  const uniqueConflict: ProblemCode[] = definition.unique ? ['conflict'] : [];

  return async (app) => {
    definition.moreRoutes?.(app, records);
    const keyset = definition.list;
    if (keyset) {
      const source = { table, columns, filters: keyset, toItem };
      app.get(
        path,
        {
          onRequest: requireCapability(definition.capabilities.read),
          schema: {
            summary: `List ${collection}, oldest first unless sorted`,
            description:
              'Every page carries nextCursor (null on the last page): pass it back as cursor, ' +
              'with the same limit, sort and filters, to read the next page at the cost of the ' +
              'first. sort=updatedAt walks changes in change order: a walk meets each change once, ' +
              'even while writes continue. cursor with offset is a 400; ' +
              'so is any parameter not listed here.',
            tags: [tag],
            security,
            querystring: keysetListQuery(keyset),
            response: {
              // The SDK's schema, nextCursor included (optional there, for older servers).
              200: schemas.list,
              ...problemResponses(),
            },
          },
        },
        async (request) => {
          const query = request.query as KeysetListQuery;
          const { items, nextCursor } = await listPage(database, source, query);
          return { [collection]: items, nextCursor };
        },
      );
    } else {
      app.get(
        path,
        {
          onRequest: requireCapability(definition.capabilities.read),
          schema: {
            summary: `List ${collection}, oldest first`,
            tags: [tag],
            security,
            querystring: offsetListQuery,
            response: { 200: schemas.list, ...problemResponses() },
          },
        },
        async (request) => {
          const { limit, offset } = request.query as z.output<typeof offsetListQuery>;
          const { rows } = await database.query(
            `SELECT ${columns} FROM ${table} ORDER BY created_at, id LIMIT $1 OFFSET $2`,
            [limit, offset],
          );
          return { [collection]: rows.map(toItem) };
        },
      );
    }

    if (definition.count) {
      app.get(
        `${path}/count`,
        {
          onRequest: requireCapability(definition.capabilities.read),
          schema: {
            summary: `Count ${collection} (v1.1)`,
            tags: [tag],
            security,
            response: {
              200: countSchema,
              ...problemResponses(),
            },
          },
        },
        async () => {
          const { rows } = await database.query<{ count: string }>(
            `SELECT count(*) AS count FROM ${table}`,
          );
          return { count: Number(rows[0]?.count ?? 0) };
        },
      );
    }

    app.get(
      `${path}/:id`,
      {
        onRequest: requireCapability(definition.capabilities.read),
        schema: {
          summary: `Get one ${name}`,
          tags: [tag],
          security,
          params: idParams,
          response: { 200: schemas.item, ...problemResponses('not_found') },
        },
      },
      async (request) => {
        const { id } = request.params as z.output<typeof idParams>;
        const { rows } = await database.query(`SELECT ${columns} FROM ${table} WHERE id = $1`, [
          id,
        ]);
        const row = rows[0];
        if (!row) throw notFound(definition, id);
        return toItem(row);
      },
    );

    app.post(
      path,
      {
        onRequest: requireCapability(definition.capabilities.write),
        config: { idempotent: true },
        schema: {
          summary: `Create a ${name}`,
          description: 'Send an Idempotency-Key header to make a retry safe.',
          tags: [tag],
          security,
          body: schemas.create,
          response: { 201: schemas.item, ...problemResponses(...uniqueConflict) },
        },
      },
      async (request, reply) => {
        const body = request.body as Record<string, unknown>;
        const actor = actorOf(request);
        try {
          // A create in one statement knows whether an endpoint takes its event: when none does,
          // the event was written dispatched and there is nothing to wake the workers for.
          const { item, pending } = createsInOneStatement
            ? await createInOneStatement(actor, body)
            : {
                ...(await database.transaction((transaction) =>
                  records.create(transaction, actor, body),
                )),
                pending: true,
              };
          definition.afterCreateCommitted?.();
          if (events && pending) events.onOutboxEvent?.();
          return reply.code(201).send(item);
        } catch (error) {
          throw constraintProblem(definition, error);
        }
      },
    );

    app.patch(
      `${path}/:id`,
      {
        onRequest: requireCapability(definition.capabilities.write),
        schema: {
          summary: `Update a ${name}: only the fields sent change`,
          tags: [tag],
          security,
          params: idParams,
          body: schemas.update,
          response: {
            200: schemas.item,
            ...problemResponses('not_found', ...uniqueConflict),
          },
        },
      },
      async (request) => {
        const { id } = request.params as z.output<typeof idParams>;
        const body = request.body as Record<string, unknown>;
        const actor = actorOf(request);
        try {
          const { item, announced } = await database.transaction((transaction) =>
            records.update(transaction, actor, id, body),
          );
          if (announced) events?.onOutboxEvent?.();
          return item;
        } catch (error) {
          throw constraintProblem(definition, error);
        }
      },
    );

    app.delete(
      `${path}/:id`,
      {
        onRequest: requireCapability(definition.capabilities.delete),
        schema: {
          summary: `Delete a ${name}`,
          tags: [tag],
          security,
          params: idParams,
          response: {
            204: z.null().describe('Deleted; no body'),
            ...problemResponses('not_found'),
          },
        },
      },
      async (request, reply) => {
        const { id } = request.params as z.output<typeof idParams>;
        const actor = actorOf(request);
        await database.transaction((transaction) =>
          deleteRecord(transaction, { definition, actor, id, clock, newId }),
        );
        if (events) events.onOutboxEvent?.();
        return reply.code(204).send();
      },
    );
  };
}

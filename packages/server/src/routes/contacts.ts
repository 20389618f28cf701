import {
  contactListSchema,
  contactSchema,
  createContactInputSchema,
  LIFECYCLE_VALUES,
  updateContactInputSchema,
} from '@followup/sdk';
import type { FastifyPluginAsync } from 'fastify';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import { recordOutboxEvent } from '../outbox/outbox.js';
import type { RequireCapability } from '../plugins/authentication.js';
import { contactChangeOrder } from '../storage/change-order.js';
import type { Database } from '../storage/database.js';
import { contactBatchRoute } from './contact-batch.js';
import { contactChangesRoute } from './contact-changes.js';
import { contactEraseRoute } from './contact-erase.js';
import { dealStorage } from './deals.js';
import {
  itemColumns,
  itemFromRow,
  type ResourceDefinition,
  resourceRoutes,
} from './resource-routes.js';

/**
 * @internal `/api/contacts`: list, count (v1.1), get, create, update (contacts.read,
 * contacts.write) and delete (contacts.delete). Every change writes a `contact.created`,
 * `contact.updated` or `contact.deleted` event into the outbox in its own transaction; a delete
 * removes the contact's deals too (a `deal.deleted` event each) and is audited as
 * `contact.deleted`. `POST /api/contacts/{id}/erase` (contacts.delete) erases a person (see
 * `erasure/contact-erasure.ts`).
 */
export function contactRoutes(options: {
  database: Database;
  clock: Clock;
  newId: IdGenerator;
  requireCapability: RequireCapability;
  /** Told after a change committed its event. */
  onOutboxEvent?: () => void;
}): FastifyPluginAsync {
  const { onOutboxEvent } = options;
  return resourceRoutes(
    {
      ...contactDefinition(options),
      moreRoutes(app, records) {
        contactChangesRoute(app, records, options);
        contactBatchRoute(app, records, { ...options, onOutboxEvent });
        contactEraseRoute(app, options);
      },
    },
    options,
  );
}

/**
 * @internal What a contact is, for the routes and for the actions that run outside them (a
 * contact's erasure through the CLI deletes it as `DELETE /api/contacts/{id}` does): table,
 * fields, schemas, capabilities, events, and the delete that takes its deals along.
 */
export function contactDefinition(options: {
  clock: Clock;
  newId: IdGenerator;
  /** Told after a change committed its event. */
  onOutboxEvent?: (() => void) | undefined;
}): ResourceDefinition {
  const { clock, newId, onOutboxEvent } = options;
  return {
    name: 'contact',
    path: '/api/contacts',
    collection: 'contacts',
    idPrefix: 'con',
    capabilities: { read: 'contacts.read', write: 'contacts.write', delete: 'contacts.delete' },
    schemas: {
      item: contactSchema,
      list: contactListSchema,
      create: createContactInputSchema,
      update: updateContactInputSchema,
    },
    fields: {
      firstName: { column: 'first_name' },
      lastName: { column: 'last_name' },
      lifecycle: { column: 'lifecycle' },
      email: { column: 'email', optional: true },
      phone: { column: 'phone', optional: true },
    },
    defaults: { lifecycle: 'LEAD' },
    updatedAt: true,
    count: true,
    list: {
      oneOf: { parameter: 'lifecycle', column: 'lifecycle', values: LIFECYCLE_VALUES, open: true },
      email: 'email',
      search: ['first_name', 'last_name', 'email'],
    },
    changes: { order: contactChangeOrder, tombstones: 'contact_tombstones' },
    audited: { created: true, updated: false, deleted: true },
    events: onOutboxEvent ? { onOutboxEvent } : {},
    async beforeDelete(transaction, id) {
      // Lock the contact first: a deal cannot be added to it between this delete and the
      // contact's. Its deals go first, each announced as deleted.
      await transaction.query('SELECT id FROM contacts WHERE id = $1 FOR UPDATE', [id]);
      const { rows } = await transaction.query(
        `DELETE FROM deals WHERE contact_id = $1 RETURNING ${itemColumns(dealStorage)}`,
        [id],
      );
      rows.sort((a, b) => String(a.id).localeCompare(String(b.id)));
      for (const row of rows) {
        await recordOutboxEvent(
          transaction,
          { event: 'deal.deleted', data: itemFromRow(dealStorage, row) },
          { clock, newId },
        );
      }
      return { dealsDeleted: rows.length };
    },
  };
}

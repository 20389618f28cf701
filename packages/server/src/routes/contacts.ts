import {
  contactListSchema,
  contactSchema,
  createContactInputSchema,
  updateContactInputSchema,
} from '@followup/sdk';
import type { FastifyPluginAsync } from 'fastify';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { RequireCapability } from '../plugins/authentication.js';
import type { Database } from '../storage/database.js';
import { contactListFilters, contactTable } from '../stores/contact-store.js';
import { contactBatchRoute } from './contact-batch.js';
import { contactChangesRoute } from './contact-changes.js';
import { contactEraseRoute } from './contact-erase.js';
import type { ResourceDefinition } from './resource-definition.js';
import { resourceRoutes } from './resource-routes.js';

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
      moreRoutes(app, store) {
        contactChangesRoute(app, options);
        contactBatchRoute(app, store, { ...options, onOutboxEvent });
        contactEraseRoute(app, options);
      },
    },
    options,
  );
}

/**
 * @internal What a contact is for the routes: how it is stored (`contactTable`, shared with a
 * contact's erasure), its path, schemas, capabilities and list filters.
 */
function contactDefinition(options: {
  clock: Clock;
  newId: IdGenerator;
  /** Told after a change committed its event. */
  onOutboxEvent?: (() => void) | undefined;
}): ResourceDefinition {
  return {
    ...contactTable(options),
    path: '/api/contacts',
    capabilities: { read: 'contacts.read', write: 'contacts.write', delete: 'contacts.delete' },
    schemas: {
      item: contactSchema,
      list: contactListSchema,
      create: createContactInputSchema,
      update: updateContactInputSchema,
    },
    count: true,
    list: contactListFilters,
  };
}

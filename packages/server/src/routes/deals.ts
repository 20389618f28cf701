import {
  createDealInputSchema,
  dealListSchema,
  dealSchema,
  updateDealInputSchema,
} from '@followup/sdk';
import type { FastifyPluginAsync } from 'fastify';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { RequireCapability } from '../plugins/authentication.js';
import { dealChangeOrder } from '../storage/change-order.js';
import type { Database } from '../storage/database.js';
import { dealListFilters, dealStorage } from '../stores/deal-store.js';
import { resourceRoutes } from './resource-routes.js';

/**
 * @internal `/api/deals`: list, count (v1.1), get (deals.read), create, update and delete
 * (deals.write). A deal's `contactId` must name an existing contact: otherwise the create is a
 * 400 `validation_failed` on `contactId` (the request is wrong, not the URL). A deal cannot move
 * to another contact. Deletes are audited as `deal.deleted`. Every change writes a `deal.created`,
 * `deal.updated` or `deal.deleted` event into the outbox in its transaction.
 */
export function dealRoutes(options: {
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
      name: 'deal',
      path: '/api/deals',
      collection: 'deals',
      idPrefix: 'deal',
      capabilities: { read: 'deals.read', write: 'deals.write', delete: 'deals.write' },
      schemas: {
        item: dealSchema,
        list: dealListSchema,
        create: createDealInputSchema,
        update: updateDealInputSchema,
      },
      ...dealStorage,
      defaults: { stage: 'OPEN' },
      count: true,
      list: dealListFilters,
      changes: { order: dealChangeOrder },
      references: {
        deals_contact_id_fkey: { field: 'contactId', message: 'no contact has this id' },
      },
      audited: { created: false, updated: false, deleted: true },
      events: onOutboxEvent ? { onOutboxEvent } : {},
    },
    options,
  );
}

import {
  campaignListSchema,
  campaignSchema,
  createCampaignInputSchema,
  updateCampaignInputSchema,
} from '@followup/sdk';
import type { FastifyPluginAsync } from 'fastify';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { RequireCapability } from '../plugins/authentication.js';
import type { Database } from '../storage/database.js';
import { resourceRoutes } from './resource-routes.js';

/**
 * @internal `/api/campaigns`: list, get, create, update and delete, all behind
 * campaigns.manage. `status` defaults to `DRAFT`. Deletes are audited as `campaign.deleted`.
 */
export function campaignRoutes(options: {
  database: Database;
  clock: Clock;
  newId: IdGenerator;
  requireCapability: RequireCapability;
}): FastifyPluginAsync {
  return resourceRoutes(
    {
      name: 'campaign',
      path: '/api/campaigns',
      collection: 'campaigns',
      idPrefix: 'cmp',
      capabilities: {
        read: 'campaigns.manage',
        write: 'campaigns.manage',
        delete: 'campaigns.manage',
      },
      schemas: {
        item: campaignSchema,
        list: campaignListSchema,
        create: createCampaignInputSchema,
        update: updateCampaignInputSchema,
      },
      fields: {
        name: { column: 'name' },
        status: { column: 'status' },
      },
      defaults: { status: 'DRAFT' },
      updatedAt: true,
      count: false,
      audited: { created: false, updated: false, deleted: true },
    },
    options,
  );
}

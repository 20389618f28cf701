import {
  createSequenceInputSchema,
  sequenceListSchema,
  sequenceSchema,
  updateSequenceInputSchema,
} from '@followup/sdk';
import type { FastifyPluginAsync } from 'fastify';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { RequireCapability } from '../plugins/authentication.js';
import type { Database } from '../storage/database.js';
import { resourceRoutes } from './resource-routes.js';

/**
 * @internal `/api/sequences`: list, get, create, update and delete, all behind
 * sequences.manage. `status` defaults to `DRAFT` and `steps` to `[]`; `PATCH` replaces `steps`
 * as a whole. Deletes are audited as `sequence.deleted`.
 */
export function sequenceRoutes(options: {
  database: Database;
  clock: Clock;
  newId: IdGenerator;
  requireCapability: RequireCapability;
}): FastifyPluginAsync {
  return resourceRoutes(
    {
      name: 'sequence',
      path: '/api/sequences',
      collection: 'sequences',
      idPrefix: 'seq',
      capabilities: {
        read: 'sequences.manage',
        write: 'sequences.manage',
        delete: 'sequences.manage',
      },
      schemas: {
        item: sequenceSchema,
        list: sequenceListSchema,
        create: createSequenceInputSchema,
        update: updateSequenceInputSchema,
      },
      fields: {
        name: { column: 'name' },
        status: { column: 'status' },
        steps: { column: 'steps', type: 'json' },
      },
      defaults: { status: 'DRAFT', steps: [] },
      updatedAt: true,
      count: false,
      audited: { created: false, updated: false, deleted: true },
    },
    options,
  );
}

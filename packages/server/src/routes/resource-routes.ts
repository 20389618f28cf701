import type { FastifyPluginAsync } from 'fastify';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { RequireCapability } from '../plugins/authentication.js';
import type { Database } from '../storage/database.js';
import { resourceStore } from '../stores/resource-store.js';
import type { ResourceDefinition } from './resource-definition.js';
import { resourceReadRoutes } from './resource-read-routes.js';
import { resourceWriteRoutes } from './resource-write-routes.js';

/**
 * @internal The routes of one resource family, all behind its capabilities, over one store
 * (`stores/resource-store.ts`): the reads (`resource-read-routes.ts`: list, count, get), the
 * writes (`resource-write-routes.ts`: create, update, delete) and the definition's `moreRoutes`.
 * Bodies are validated with the SDK's schemas, which also describe every answer in
 * `/openapi.json`.
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
  const store = resourceStore(definition, { clock, newId });
  const context = { definition, store, database, requireCapability };
  return async (app) => {
    definition.moreRoutes?.(app, store);
    resourceReadRoutes(app, context);
    resourceWriteRoutes(app, context);
  };
}

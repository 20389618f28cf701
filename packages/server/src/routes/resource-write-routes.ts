import type { ProblemCode } from '@followup/sdk';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { problemResponses } from '../plugins/openapi.js';
import { constraintProblem } from './constraint-problem.js';
import {
  actorOf,
  idParams,
  type ResourceRouteContext,
  resourceTag,
} from './resource-definition.js';

const security = [{ bearerAuth: [] }];

/**
 * @internal The writes of one resource family, through its store: `POST <path>` (201,
 * `Idempotency-Key`; write capability), `PATCH <path>/:id` (200; write) and `DELETE <path>/:id`
 * (204; delete). A constraint violation is the problem the definition names for it; the
 * delivery workers are woken after a commit that wrote an event they may deliver.
 */
export function resourceWriteRoutes(app: FastifyInstance, context: ResourceRouteContext): void {
  const { definition, store, database, requireCapability } = context;
  const { name, path, schemas, events } = definition;
  const tag = resourceTag(definition);
  // Only a resource with a unique field can answer a write with 409 conflict.
  const uniqueConflict: ProblemCode[] = definition.unique ? ['conflict'] : [];

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
        const { item, pending } = await store.createRecord(database, { actor, body });
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
          store.updateRecord(transaction, { actor, id, body }),
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
      await database.transaction((transaction) => store.deleteRecord(transaction, { actor, id }));
      if (events) events.onOutboxEvent?.();
      return reply.code(204).send();
    },
  );
}

import {
  boundedText,
  INPUT_LIMITS,
  queuedReplaySchema,
  replayInputSchema,
  replaySchema,
} from '@followup/sdk';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { readReplayProgress, replayEvents } from '../delivery/webhook-replay.js';
import type { IdGenerator } from '../ids.js';
import type { RequireCapability } from '../plugins/authentication.js';
import { problemResponses } from '../plugins/openapi.js';
import { ProblemError } from '../problem-error.js';
import type { Database } from '../storage/database.js';
import { actorOf, withProblems } from './webhook-route-support.js';

const idParams = z.object({ id: boundedText({ min: 1, max: INPUT_LIMITS.id }) });

const tags = ['Replays'];
const security = [{ bearerAuth: [] }];

/**
 * @internal The webhook API's replays (`webhooks.manage`, ADMIN): `POST
 * /api/webhook-endpoints/{id}/replay` queues the events of a window again as new deliveries to
 * the endpoint (`delivery/webhook-replay.ts`, audited with the caller as actor), and `GET
 * /api/replays/{id}` answers how far they went.
 */
export function replayRoutes(options: {
  database: Database;
  clock: Clock;
  newId: IdGenerator;
  requireCapability: RequireCapability;
  onOutboxEvent: () => void;
}): FastifyPluginAsync {
  const { database, clock, newId } = options;
  const onRequest = options.requireCapability('webhooks.manage');
  return async (app) => {
    const typed = app.withTypeProvider<ZodTypeProvider>();

    typed.post(
      '/api/webhook-endpoints/:id/replay',
      {
        onRequest,
        schema: {
          operationId: 'replayWebhookEndpoint',
          summary:
            'Send a webhook endpoint again the events of a window, as new deliveries; follow the replay',
          tags,
          security,
          params: idParams,
          body: replayInputSchema,
          response: {
            202: queuedReplaySchema,
            ...problemResponses('not_found', 'conflict'),
          },
        },
      },
      async (request, reply) => {
        const { since, until, kinds, states } = request.body;
        const queued = await withProblems(() =>
          replayEvents(database, {
            replay: {
              endpointId: request.params.id,
              since: new Date(since),
              until: until === undefined ? undefined : new Date(until),
              kinds,
              states,
            },
            clock,
            newId,
            actor: actorOf(request),
          }),
        );
        if (queued.count > 0) options.onOutboxEvent();
        return reply.status(202).send(queued);
      },
    );

    typed.get(
      '/api/replays/:id',
      {
        onRequest,
        schema: {
          operationId: 'getReplay',
          summary: "Get a replay's progress: running while any of its deliveries is pending",
          tags,
          security,
          params: idParams,
          response: { 200: replaySchema, ...problemResponses('not_found') },
        },
      },
      async (request) => {
        const { id } = request.params;
        const progress = await readReplayProgress(database, id);
        if (!progress) {
          throw new ProblemError({
            code: 'not_found',
            detail: `No replay has the id ${JSON.stringify(id)}.`,
          });
        }
        return { ...progress };
      },
    );
  };
}

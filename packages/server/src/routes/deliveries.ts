import { deliveryAttemptListSchema } from '@followup/sdk';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { createDeliveryStore } from '../delivery/deliveries.js';
import type { RequireCapability } from '../plugins/authentication.js';
import { problemResponses } from '../plugins/openapi.js';
import { ProblemError } from '../problem-error.js';
import type { Database } from '../storage/database.js';

const paramsSchema = z.object({ id: z.string().min(1).max(255) });

/**
 * @internal `GET /api/deliveries/:id/attempts` (ADMIN, through `webhooks.manage`): every attempt of
 * a delivery, oldest first, with the first 4 KiB of each answer. The same store function as
 * `followup-server deliveries show` and the web application's delivery page.
 */
export function deliveryRoutes(options: {
  database: Database;
  clock: Clock;
  requireCapability: RequireCapability;
}): FastifyPluginAsync {
  const deliveries = createDeliveryStore({ database: options.database, clock: options.clock });
  return async (app) => {
    app.withTypeProvider<ZodTypeProvider>().get(
      '/api/deliveries/:id/attempts',
      {
        onRequest: options.requireCapability('webhooks.manage'),
        schema: {
          summary: "List a webhook delivery's attempts, oldest first",
          tags: ['Events'],
          security: [{ bearerAuth: [] }],
          params: paramsSchema,
          response: {
            200: deliveryAttemptListSchema,
            ...problemResponses('not_found'),
          },
        },
      },
      async (request) => {
        const { id } = request.params;
        if ((await deliveries.get(id)) === undefined) {
          throw new ProblemError({
            code: 'not_found',
            detail: `No delivery has the id ${JSON.stringify(id)}.`,
          });
        }
        return { attempts: await deliveries.attempts(id) };
      },
    );
  };
}

import { portalLinkInputSchema, portalLinkSchema } from '@followup/sdk';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { RequireCapability } from '../plugins/authentication.js';
import { problemResponses } from '../plugins/openapi.js';
import { createPortalLink } from '../portal/portal-links.js';
import type { Database } from '../storage/database.js';
import { publicUrlOf } from '../web/page-context.js';
import { actorOf } from './webhook-route-support.js';

/**
 * @internal `POST /api/webhook-portal/links` (`webhooks.manage`, ADMIN): a one-time link into the
 * subscriber portal for one subscriber, answered once (`portal/portal-links.ts`, the same action
 * as the console's **Portal link** button and `followup-server endpoints portal-link`).
 */
export function webhookPortalRoutes(options: {
  database: Database;
  clock: Clock;
  newId: IdGenerator;
  requireCapability: RequireCapability;
  publicUrl: string | undefined;
}): FastifyPluginAsync {
  const { database, clock, newId } = options;
  const onRequest = options.requireCapability('webhooks.manage');
  return async (app) => {
    app.withTypeProvider<ZodTypeProvider>().post(
      '/api/webhook-portal/links',
      {
        onRequest,
        schema: {
          operationId: 'createWebhookPortalLink',
          summary:
            "Make a one-time link into the subscriber portal for one subscriber's endpoints; answered once",
          tags: ['Webhook endpoints'],
          security: [{ bearerAuth: [] }],
          body: portalLinkInputSchema,
          response: { 201: portalLinkSchema, ...problemResponses() },
        },
      },
      async (request, reply) => {
        const link = await createPortalLink(database, {
          subscriber: request.body.subscriber,
          expiresInMinutes: request.body.expiresInMinutes,
          publicUrl: publicUrlOf(request, options.publicUrl),
          actor: actorOf(request),
          clock,
          newId,
        });
        return reply.status(201).send({ url: link.url, expiresAt: link.expiresAt });
      },
    );
  };
}

import type { FastifyInstance } from 'fastify';
import { createPortalLink } from '../../portal/portal-links.js';
import { publicUrlOf } from '../page-context.js';
import { actorOf, pageRoute, rememberFlash, textField, withPageErrors } from './page-helpers.js';
import type { WebPage } from './web-page.js';

/**
 * @internal The **Portal link** form of the Webhook endpoints page: a one-time link into the
 * subscriber portal for one subscriber, made by the same action as `POST
 * /api/webhook-portal/links` and shown once on the list, from a one-time flash.
 */
export const portalLinkForm: WebPage =
  ({ database, clock, newId, publicUrl }) =>
  async (app: FastifyInstance) => {
    const guard = pageRoute('webhooks.manage');
    // The subscriber portal's link, shown once on the list (the same action as the API's).
    app.post('/webhook-endpoints/portal-link', guard, async (request, reply) =>
      withPageErrors(request, reply, '/webhook-endpoints', async () => {
        const minutes = textField(request.body, 'expiresInMinutes', 10);
        const subscriber = textField(request.body, 'subscriber', 100);
        const link = await createPortalLink(database, {
          subscriber,
          expiresInMinutes:
            minutes === '' ? undefined : /^\d{1,4}$/.test(minutes) ? Number(minutes) : Number.NaN,
          publicUrl: publicUrlOf(request, publicUrl),
          actor: actorOf(request),
          clock,
          newId,
        });
        await rememberFlash(
          request,
          reply,
          { database, clock, newId },
          { kind: 'portal-link', subscriber, url: link.url, expiresAt: link.expiresAt },
        );
        return reply.redirect('/webhook-endpoints', 303);
      }),
    );
  };

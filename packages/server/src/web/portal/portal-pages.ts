import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createPortalActions } from '../../portal/portal-actions.js';
import { findUsablePortalLink, startPortalSession } from '../../portal/portal-links.js';
import { endPortalSession } from '../../portal/portal-sessions.js';
import type { WebPage } from '../pages/web-page.js';
import { defineTemplate } from '../templates.js';
import { registerPortalDeliveryPages } from './portal-delivery-pages.js';
import { registerPortalEndpointPages } from './portal-endpoint-pages.js';
import { requirePortalSession, sendPortalMessage, sendPortalPage } from './portal-layout.js';
import { registerPortalReplayPages } from './portal-replay-pages.js';
import {
  checkPortalCsrf,
  clearPortalCookie,
  loadPortalSession,
  portalCookieValue,
  setPortalCookie,
} from './portal-session-cookie.js';

const confirmTemplate = defineTemplate<{ subscriber: string; action: string }>(`
<h1>Open the webhooks portal</h1>
<p>This link opens the webhooks portal of <strong><%= it.subscriber %></strong> for 8 hours: its endpoints, their deliveries, replays and the event types.</p>
<p>The link works once. Open the portal now, in the browser you will use it in.</p>
<form method="post" action="<%= it.action %>">
<button type="submit">Open the portal</button>
</form>
`);

const unusableMessage =
  'This portal link was already used, has expired, or is not a portal link. Ask the service that sent it for a new one.';

/**
 * @internal The subscriber portal under `/portal` (see src/web/README.md, "Subscriber portal"):
 * a link's confirmation page, whose POST uses the link up and starts a portal session (its own
 * cookie, 8 hours, CSRF as the console's); then Endpoints, Deliveries, Replay and Event types,
 * every one seeing and changing only the session's subscriber's endpoints and deliveries
 * (`portal/portal-actions.ts`). Registered inside the web application's context: helmet and its
 * CSP, forms, the same-origin check of unsafe requests and `no-store` apply.
 */
export const portalPages: WebPage =
  ({ database, clock, newId, allowPrivateEndpoints, onOutboxEvent }) =>
  async (app: FastifyInstance) => {
    const actions = createPortalActions({
      database,
      clock,
      newId,
      allowPrivateEndpoints,
      onOutboxEvent,
    });
    app.decorateRequest('portalSession', null);
    // Nothing here is part of the API: no page in the OpenAPI document.
    app.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });
    app.addHook('onRequest', async (request) => {
      request.portalSession = (await loadPortalSession(database, request, clock)) ?? null;
    });
    // The web application has refused an unsafe request that is not same-origin; a portal
    // session's must also carry its CSRF token (the form field is readable once parsed).
    app.addHook('preHandler', async (request) => {
      if (request.portalSession) checkPortalCsrf(request, request.portalSession);
    });

    function unusable(request: FastifyRequest, reply: FastifyReply) {
      return sendPortalMessage(request, reply, {
        status: 410,
        title: 'Portal link cannot be used',
        message: unusableMessage,
      });
    }

    // Opening the link only shows what it opens: a link scanner or a preview that fetches it
    // does not use it up. The POST does.
    app.get<{ Params: { token: string } }>(
      '/portal/link/:token',
      { onRequest: app.limitByAddress },
      async (request, reply) => {
        const link = await findUsablePortalLink(database, request.params.token, clock);
        if (!link) return unusable(request, reply);
        return sendPortalPage(request, reply, {
          title: 'Open the webhooks portal',
          body: confirmTemplate.render({
            subscriber: link.subscriber,
            action: `/portal/link/${encodeURIComponent(request.params.token)}`,
          }),
        });
      },
    );

    app.post<{ Params: { token: string } }>(
      '/portal/link/:token',
      { onRequest: app.limitByAddress },
      async (request, reply) => {
        const started = await startPortalSession(database, request.params.token, { clock, newId });
        if (!started) return unusable(request, reply);
        // A portal session the browser held before ends: one browser, one subscriber.
        await endPortalSession(database, portalCookieValue(request));
        setPortalCookie(request, reply, started, clock.now());
        return reply.redirect('/portal/endpoints', 303);
      },
    );

    app.post('/portal/leave', { onRequest: requirePortalSession }, async (request, reply) => {
      await endPortalSession(database, portalCookieValue(request));
      clearPortalCookie(request, reply);
      request.portalSession = null;
      return sendPortalMessage(request, reply, {
        status: 200,
        title: 'You left the portal',
        message: 'Your portal session ended. To come back, ask for a new portal link.',
      });
    });

    await app.register(async (pages) => {
      pages.addHook('onRequest', requirePortalSession);
      pages.get('/portal', async (_request, reply) => reply.redirect('/portal/endpoints', 303));
      registerPortalEndpointPages(pages, { database, clock, newId, actions });
      registerPortalDeliveryPages(pages, { actions });
      registerPortalReplayPages(pages, { actions, clock });
    });
  };

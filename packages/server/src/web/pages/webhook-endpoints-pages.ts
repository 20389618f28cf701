import type { FastifyInstance } from 'fastify';
import { createDeliveryStore, deliveryStates } from '../../delivery/deliveries.js';
import { deliverableEvents } from '../../delivery/event-list.js';
import { sendTestEvent } from '../../delivery/test-event.js';
import { createEndpointStore } from '../../delivery/webhook-endpoints.js';
import { FollowUpServerError } from '../../errors.js';
import { countEndpointAttempts } from '../../stores/endpoint-attempt-stats-store.js';
import { pageContext, sendPage } from '../page-context.js';
import { sendConfirmPage } from './confirm-page.js';
import { deliveryStatus } from './delivery-status.js';
import { endpointStatus } from './endpoint-status.js';
import { listPage } from './list-page.js';
import {
  actorOf,
  noticeOf,
  pageRoute,
  recallFlash,
  rememberFlash,
  rememberNotice,
  sendNotFoundPage,
  textField,
  when,
  wholeTextField,
  withPageErrors,
} from './page-helpers.js';
import { shortId } from './short-id.js';
import type { WebPage } from './web-page.js';
import { backTo, DAY_MS, eventsField, rotationText } from './webhook-endpoint-fields.js';
import {
  detailTemplate,
  eventNames,
  listTemplate,
  newTemplate,
  type PortalLinkFlash,
  removeTemplate,
  type SecretFlash,
} from './webhook-endpoints-templates.js';

/**
 * @internal The Webhook endpoints pages (webhooks.manage): the list, **Add endpoint** (the signing
 * secret shown once, after a redirect), **Rotate secret**, disable and enable: the endpoint
 * store, as `followup-server endpoints …` uses it.
 */
export const webhookEndpointsPages: WebPage =
  ({ database, clock, newId, allowPrivateEndpoints, onOutboxEvent }) =>
  async (app: FastifyInstance) => {
    const guard = pageRoute('webhooks.manage');
    const endpoints = createEndpointStore({
      database,
      clock,
      newId,
      // Disable and enable write endpoint.* events: the worker hears of them at once, as after
      // the API's.
      onOutboxEvent,
      addressPolicy: { allowPrivate: allowPrivateEndpoints },
    });
    const deliveries = createDeliveryStore({ database, clock, newId });

    app.get('/webhook-endpoints', guard, async (request, reply) => {
      const page = listPage(request.query, '/webhook-endpoints');
      const shown = (await endpoints.list()).slice(page.offset, page.offset + page.limit);
      const flash = await recallFlash(request, reply, { database, clock });
      return sendPage(request, reply, {
        title: 'Webhook endpoints',
        notice: noticeOf(flash),
        body: listTemplate.render({
          endpoints: shown,
          secret: flash?.kind === 'signing-secret' ? (flash as unknown as SecretFlash) : undefined,
          portalLink:
            flash?.kind === 'portal-link' ? (flash as unknown as PortalLinkFlash) : undefined,
          csrfToken: pageContext(request).csrfToken,
          back: 'list',
          statusOf: endpointStatus,
          eventNames,
          paging: page.paging(shown.length),
          when,
        }),
      });
    });

    app.get('/webhook-endpoints/new', guard, async (request, reply) =>
      sendPage(request, reply, {
        title: 'Add endpoint',
        body: newTemplate.render({
          csrfToken: pageContext(request).csrfToken,
          kinds: deliverableEvents,
          url: '',
          events: [],
          error: undefined,
        }),
      }),
    );

    app.get<{ Params: { id: string } }>('/webhook-endpoints/:id', guard, async (request, reply) => {
      const endpoint = await endpoints.get(request.params.id);
      if (!endpoint) return sendNotFoundPage(request, reply, '/webhook-endpoints');
      const path = `/webhook-endpoints/${encodeURIComponent(endpoint.id)}`;
      return withPageErrors(request, reply, path, async () => {
        const state = textField(request.query, 'state', 20);
        const page = listPage(request.query, path, { state });
        const now = clock.now();
        const [list, success, rotation] = await Promise.all([
          deliveries.list({
            endpointId: endpoint.id,
            limit: page.limit,
            offset: page.offset,
            newestFirst: true,
            ...(state ? { state } : {}),
          }),
          countEndpointAttempts(database, {
            endpointId: endpoint.id,
            since: new Date(now - DAY_MS),
            until: new Date(now),
          }),
          rotationText(database, endpoint, now),
        ]);
        const flash = await recallFlash(request, reply, { database, clock });
        return sendPage(request, reply, {
          title: `Endpoint ${endpoint.id}`,
          notice: noticeOf(flash),
          body: detailTemplate.render({
            endpoint,
            status: endpointStatus(endpoint),
            secret:
              flash?.kind === 'signing-secret' && flash.endpointId === endpoint.id
                ? (flash as unknown as SecretFlash)
                : undefined,
            rotation,
            success,
            deliveries: list,
            deliveryStatusOf: deliveryStatus,
            states: deliveryStates,
            state,
            paging: page.paging(list.length),
            csrfToken: pageContext(request).csrfToken,
            back: 'detail',
            when,
            shortId,
            eventNames,
          }),
        });
      });
    });

    app.post('/webhook-endpoints', guard, async (request, reply) => {
      const url = wholeTextField(request.body, 'url');
      const events = eventsField(request.body);
      let endpoint: Awaited<ReturnType<typeof endpoints.add>>;
      try {
        endpoint = await endpoints.add({ url, ...(events ? { events } : {}) }, actorOf(request));
      } catch (error) {
        if (!FollowUpServerError.isInstance(error)) throw error;
        // The form again, with what was typed and why it was refused.
        return sendPage(request, reply, {
          title: 'Add endpoint',
          status: 400,
          body: newTemplate.render({
            csrfToken: pageContext(request).csrfToken,
            kinds: deliverableEvents,
            url,
            events: events ?? [],
            error: error.message,
          }),
        });
      }
      await rememberFlash(
        request,
        reply,
        { database, clock, newId },
        {
          kind: 'signing-secret',
          endpointId: endpoint.id,
          secret: endpoint.secret,
          rotated: false,
          previousSecretUntil: null,
          notice: `Endpoint ${endpoint.id} added.`,
        },
      );
      return reply.redirect('/webhook-endpoints', 303);
    });

    app.post<{ Params: { id: string } }>(
      '/webhook-endpoints/:id/rotate-secret',
      guard,
      async (request, reply) =>
        withPageErrors(request, reply, '/webhook-endpoints', async () => {
          const endpoint = await endpoints.rotateSecret(
            request.params.id,
            undefined,
            actorOf(request),
          );
          await rememberFlash(
            request,
            reply,
            { database, clock, newId },
            {
              kind: 'signing-secret',
              endpointId: endpoint.id,
              secret: endpoint.secret,
              rotated: true,
              previousSecretUntil: endpoint.previousSecretUntil,
              notice: `Secret of ${endpoint.id} rotated.`,
            },
          );
          return reply.redirect(backTo(request), 303);
        }),
    );

    app.post<{ Params: { id: string } }>(
      '/webhook-endpoints/:id/test',
      guard,
      async (request, reply) =>
        withPageErrors(request, reply, '/webhook-endpoints', async () => {
          const queued = await sendTestEvent(database, {
            endpointId: request.params.id,
            clock,
            newId,
            actor: actorOf(request),
          });
          await rememberNotice(
            request,
            reply,
            { database, clock, newId },
            `Test event queued for ${request.params.id}.`,
          );
          return reply.redirect(`/deliveries/${encodeURIComponent(queued.deliveryId)}`, 303);
        }),
    );

    app.get<{ Params: { id: string } }>(
      '/webhook-endpoints/:id/remove',
      guard,
      async (request, reply) => {
        const endpoint = await endpoints.get(request.params.id);
        if (!endpoint) return sendNotFoundPage(request, reply, '/webhook-endpoints');
        return sendPage(request, reply, {
          title: 'Remove endpoint',
          body: removeTemplate.render({ endpoint, csrfToken: pageContext(request).csrfToken }),
        });
      },
    );

    app.post<{ Params: { id: string } }>(
      '/webhook-endpoints/:id/remove',
      guard,
      async (request, reply) =>
        withPageErrors(request, reply, '/webhook-endpoints', async () => {
          await endpoints.remove(request.params.id, actorOf(request));
          await rememberNotice(
            request,
            reply,
            { database, clock, newId },
            `Endpoint ${request.params.id} removed.`,
          );
          return reply.redirect('/webhook-endpoints', 303);
        }),
    );

    app.get<{ Params: { id: string } }>(
      '/webhook-endpoints/:id/disable',
      guard,
      async (request, reply) => {
        const endpoint = await endpoints.get(request.params.id);
        if (!endpoint) return sendNotFoundPage(request, reply, '/webhook-endpoints');
        const path = `/webhook-endpoints/${encodeURIComponent(endpoint.id)}`;
        const back = textField(request.query, 'back', 10) === 'detail' ? 'detail' : 'list';
        return sendConfirmPage(request, reply, {
          heading: `Disable endpoint ${endpoint.id}?`,
          about: `URL: ${endpoint.url}`,
          warning:
            'Nothing more is sent to it until it is enabled again; its deliveries wait, and are sent once it is.',
          action: `${path}/disable`,
          button: 'Disable endpoint',
          cancel: back === 'detail' ? path : '/webhook-endpoints',
          fields: { back },
        });
      },
    );

    for (const [action, done] of [
      ['disable', 'disabled'],
      ['enable', 'enabled'],
    ] as const) {
      app.post<{ Params: { id: string } }>(
        `/webhook-endpoints/:id/${action}`,
        guard,
        async (request, reply) =>
          withPageErrors(request, reply, backTo(request), async () => {
            await endpoints[action](request.params.id, actorOf(request));
            await rememberNotice(
              request,
              reply,
              { database, clock, newId },
              `Endpoint ${request.params.id} ${done}.`,
            );
            return reply.redirect(backTo(request), 303);
          }),
      );
    }
  };

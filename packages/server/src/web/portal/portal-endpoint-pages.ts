import { createWebhookEndpointInputSchema, updateWebhookEndpointInputSchema } from '@followup/sdk';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.js';
import { deliverableEvents } from '../../delivery/event-list.js';
import type { IdGenerator } from '../../ids.js';
import type { PortalActions } from '../../portal/portal-actions.js';
import { ProblemError } from '../../problem-error.js';
import type { Database } from '../../storage/database.js';
import { putFlash, takeFlash } from '../one-time-flash.js';
import { endpointStatus } from '../pages/endpoint-status.js';
import { textField, when } from '../pages/page-helpers.js';
import { checkedInput, formValues, refusal, valuesOf } from './portal-endpoint-input.js';
import {
  type EndpointFormValues,
  type PortalSecretFlash,
  portalEndpointListTemplate,
  portalEndpointTemplate,
  portalNewEndpointTemplate,
  portalRemoveTemplate,
} from './portal-endpoint-templates.js';
import { decodePortalCursor, encodePortalCursor } from './portal-form-fields.js';
import { portalSessionOf, sendPortalPage, withPortalErrors } from './portal-layout.js';
import { portalCsrfToken } from './portal-session-cookie.js';

// The flash cookie of the portal: the console's one-time secret, keyed to the portal session.
const PORTAL_FLASH_COOKIE = 'followup_portal_flash';
const PAGE_SIZE = 50;

/**
 * @internal The portal's Endpoints pages: the subscriber's list, **Add endpoint** (with the
 * subscriber's key, its secret shown once), one endpoint with **Rotate secret**, **Disable** or
 * **Enable**, **Send test event**, **Remove** and the form that edits its events, description,
 * static headers and rate limit.
 */
export function registerPortalEndpointPages(
  app: FastifyInstance,
  options: { database: Database; clock: Clock; newId: IdGenerator; actions: PortalActions },
): void {
  const { database, clock, newId, actions } = options;

  async function rememberSecret(
    request: FastifyRequest,
    reply: FastifyReply,
    secret: PortalSecretFlash,
  ) {
    const value = await putFlash(database, {
      sessionId: portalSessionOf(request).id,
      payload: secret,
      clock,
      newId,
    });
    reply.setCookie(PORTAL_FLASH_COOKIE, value, {
      httpOnly: true,
      sameSite: 'lax',
      path: '/portal',
      secure: request.protocol === 'https',
    });
  }

  async function recallSecret(request: FastifyRequest, reply: FastifyReply, endpointId?: string) {
    const cookieValue = request.cookies[PORTAL_FLASH_COOKIE];
    if (cookieValue === undefined) return undefined;
    reply.clearCookie(PORTAL_FLASH_COOKIE, { path: '/portal' });
    const payload = (await takeFlash(database, {
      sessionId: portalSessionOf(request).id,
      cookieValue,
      clock,
    })) as PortalSecretFlash | undefined;
    if (!payload || (endpointId !== undefined && payload.endpointId !== endpointId))
      return undefined;
    return payload;
  }

  app.get('/portal/endpoints', async (request, reply) => {
    const { subscriber } = portalSessionOf(request);
    const after = decodePortalCursor(textField(request.query, 'after', 200));
    const page = await actions.listEndpoints(subscriber, { after, limit: PAGE_SIZE });
    return sendPortalPage(request, reply, {
      title: 'Endpoints',
      body: portalEndpointListTemplate.render({
        endpoints: page.items,
        statusOf: endpointStatus,
        secret: await recallSecret(request, reply),
        next: page.next ? `/portal/endpoints?after=${encodePortalCursor(page.next)}` : null,
        when,
      }),
    });
  });

  const emptyForm: EndpointFormValues = {
    url: '',
    events: [],
    description: '',
    headers: '',
    rateLimit: '',
  };
  app.get('/portal/endpoints/new', async (request, reply) =>
    sendPortalPage(request, reply, {
      title: 'Add endpoint',
      body: portalNewEndpointTemplate.render({
        csrfToken: portalCsrfToken(portalSessionOf(request)),
        kinds: deliverableEvents,
        form: emptyForm,
        error: undefined,
      }),
    }),
  );

  app.post('/portal/endpoints', async (request, reply) => {
    const session = portalSessionOf(request);
    const form = formValues(request.body);
    try {
      const input = checkedInput(createWebhookEndpointInputSchema, form, true);
      const endpoint = await actions.addEndpoint(session.subscriber, input);
      await rememberSecret(request, reply, {
        endpointId: endpoint.id,
        secret: endpoint.secret,
        rotated: false,
      });
      return reply.redirect('/portal/endpoints', 303);
    } catch (error) {
      const message = refusal(error);
      if (message === undefined) throw error;
      return sendPortalPage(request, reply, {
        title: 'Add endpoint',
        status: error instanceof ProblemError ? error.status : 400,
        body: portalNewEndpointTemplate.render({
          csrfToken: portalCsrfToken(session),
          kinds: deliverableEvents,
          form,
          error: message,
        }),
      });
    }
  });

  async function showEndpoint(
    request: FastifyRequest<{ Params: { id: string } }>,
    reply: FastifyReply,
    edit?: { form: EndpointFormValues; error: string; status: number },
  ) {
    const session = portalSessionOf(request);
    const endpoint = await actions.ownEndpoint(session.subscriber, request.params.id);
    return sendPortalPage(request, reply, {
      title: `Endpoint ${endpoint.id}`,
      status: edit?.status ?? 200,
      body: portalEndpointTemplate.render({
        endpoint,
        status: endpointStatus(endpoint),
        secret: edit ? undefined : await recallSecret(request, reply, endpoint.id),
        csrfToken: portalCsrfToken(session),
        kinds: deliverableEvents,
        form: edit?.form ?? valuesOf(endpoint),
        error: edit?.error,
        when,
      }),
    });
  }

  app.get<{ Params: { id: string } }>('/portal/endpoints/:id', async (request, reply) =>
    withPortalErrors(request, reply, '/portal/endpoints', () => showEndpoint(request, reply)),
  );

  app.post<{ Params: { id: string } }>('/portal/endpoints/:id', async (request, reply) =>
    withPortalErrors(request, reply, '/portal/endpoints', async () => {
      const { subscriber } = portalSessionOf(request);
      const form = formValues(request.body);
      try {
        const change = checkedInput(updateWebhookEndpointInputSchema, form, false);
        await actions.updateEndpoint(subscriber, request.params.id, change);
      } catch (error) {
        const message = refusal(error);
        if (message === undefined) throw error;
        const status = error instanceof ProblemError ? error.status : 400;
        return showEndpoint(request, reply, { form, error: message, status });
      }
      return reply.redirect(`/portal/endpoints/${encodeURIComponent(request.params.id)}`, 303);
    }),
  );

  const detailOf = (id: string) => `/portal/endpoints/${encodeURIComponent(id)}`;

  app.post<{ Params: { id: string } }>(
    '/portal/endpoints/:id/rotate-secret',
    async (request, reply) =>
      withPortalErrors(request, reply, '/portal/endpoints', async () => {
        const { subscriber } = portalSessionOf(request);
        const endpoint = await actions.rotateSecret(subscriber, request.params.id);
        await rememberSecret(request, reply, {
          endpointId: endpoint.id,
          secret: endpoint.secret,
          rotated: true,
        });
        return reply.redirect(detailOf(endpoint.id), 303);
      }),
  );

  for (const action of ['disable', 'enable'] as const) {
    app.post<{ Params: { id: string } }>(
      `/portal/endpoints/:id/${action}`,
      async (request, reply) =>
        withPortalErrors(request, reply, '/portal/endpoints', async () => {
          const { subscriber } = portalSessionOf(request);
          if (action === 'disable') await actions.disableEndpoint(subscriber, request.params.id);
          else await actions.enableEndpoint(subscriber, request.params.id);
          return reply.redirect(detailOf(request.params.id), 303);
        }),
    );
  }

  app.post<{ Params: { id: string } }>('/portal/endpoints/:id/test', async (request, reply) =>
    withPortalErrors(request, reply, detailOf(request.params.id), async () => {
      const queued = await actions.sendTest(portalSessionOf(request).subscriber, request.params.id);
      return reply.redirect(`/portal/deliveries/${encodeURIComponent(queued.deliveryId)}`, 303);
    }),
  );

  app.get<{ Params: { id: string } }>('/portal/endpoints/:id/remove', async (request, reply) =>
    withPortalErrors(request, reply, '/portal/endpoints', async () => {
      const session = portalSessionOf(request);
      const endpoint = await actions.ownEndpoint(session.subscriber, request.params.id);
      return sendPortalPage(request, reply, {
        title: 'Remove endpoint',
        body: portalRemoveTemplate.render({ endpoint, csrfToken: portalCsrfToken(session) }),
      });
    }),
  );

  app.post<{ Params: { id: string } }>('/portal/endpoints/:id/remove', async (request, reply) =>
    withPortalErrors(request, reply, '/portal/endpoints', async () => {
      await actions.removeEndpoint(portalSessionOf(request).subscriber, request.params.id);
      return reply.redirect('/portal/endpoints', 303);
    }),
  );
}

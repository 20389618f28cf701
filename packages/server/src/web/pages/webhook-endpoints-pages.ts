import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sendTestEvent } from '../../delivery/test-event.js';
import {
  createEndpointStore,
  deliverableEvents,
  type WebhookEndpointInfo,
} from '../../delivery/webhook-endpoints.js';
import { FollowUpServerError } from '../../errors.js';
import { pageContext, sendPage } from '../page-context.js';
import { defineTemplate } from '../templates.js';
import { type EndpointStatus, endpointStatus } from './endpoint-status.js';
import { listPage, listTable, type Paging, pagingPartial } from './list-page.js';
import {
  actorOf,
  csrfPartial,
  pageRoute,
  recallFlash,
  rememberFlash,
  sendNotFoundPage,
  textField,
  when,
  wholeTextField,
  withPageErrors,
} from './page-helpers.js';
import type { WebPage } from './web-page.js';

interface SecretFlash {
  endpointId: string;
  secret: string;
  rotated: boolean;
  previousSecretUntil: string | null;
}

/**
 * @internal The event kinds an endpoint can take, as the empty states name them (template
 * source: each kind in `<code>`; kinds are lower-case words and dots, nothing to escape).
 */
export const eventKindsText = deliverableEvents.map((kind) => `<code>${kind}</code>`).join(', ');

// The one-time secret after Add endpoint or Rotate secret (data: `it.secret`).
const secretPartial = `<% if (it.secret) { %>
<section class="notice warning" aria-labelledby="secret-heading">
<h2 id="secret-heading"><%= it.secret.rotated ? 'New signing secret' : 'Signing secret' %> of <%= it.secret.endpointId %></h2>
<p><strong>Copy it now: this is the only time it is shown.</strong> Give it to the receiver, which verifies every delivery with it.<% if (it.secret.previousSecretUntil) { %> The previous secret signs too until <%= it.when(it.secret.previousSecretUntil) %>.<% } %></p>
<p class="secret" id="signing-secret"><%= it.secret.secret %></p>
<button type="button" class="secondary" data-copy="signing-secret" data-js-only>Copy secret</button>
</section>
<% } %>`;

// What can be done to an endpoint (data: `it.csrfToken`, `endpoint`, and `it.back`: where the
// forms come back to, `list` or `detail`).
const actionsPartial = `<form method="post" action="/webhook-endpoints/<%= encodeURIComponent(endpoint.id) %>/rotate-secret" class="inline">
${csrfPartial}
<input type="hidden" name="back" value="<%= it.back %>">
<button type="submit" class="secondary" aria-label="Rotate secret of <%= endpoint.id %>">Rotate secret</button>
</form>
<form method="post" action="/webhook-endpoints/<%= encodeURIComponent(endpoint.id) %>/<%= endpoint.state === 'active' ? 'disable' : 'enable' %>" class="inline">
${csrfPartial}
<input type="hidden" name="back" value="<%= it.back %>">
<button type="submit" class="secondary" aria-label="<%= endpoint.state === 'active' ? 'Disable' : 'Enable' %> <%= endpoint.id %>"><%= endpoint.state === 'active' ? 'Disable' : 'Enable' %></button>
</form>
<% if (endpoint.state === 'active') { %><form method="post" action="/webhook-endpoints/<%= encodeURIComponent(endpoint.id) %>/test" class="inline">
${csrfPartial}
<input type="hidden" name="back" value="<%= it.back %>">
<button type="submit" class="secondary" aria-label="Send test event to <%= endpoint.id %>">Send test event</button>
</form><% } %>
<form method="get" action="/webhook-endpoints/<%= encodeURIComponent(endpoint.id) %>/remove" class="inline">
<button type="submit" class="secondary" aria-label="Remove <%= endpoint.id %>">Remove</button>
</form>
<a href="/deliveries?endpoint=<%= encodeURIComponent(endpoint.id) %>">Deliveries</a>
`;

// The badge of an endpoint's state (data: `status`, an EndpointStatus).
const statusPartial = `<span class="badge <%= status.tone %>"><%= status.label %></span>`;

const listTemplate = defineTemplate<{
  endpoints: WebhookEndpointInfo[];
  secret: SecretFlash | undefined;
  csrfToken: string;
  back: 'list';
  statusOf: typeof endpointStatus;
  paging: Paging;
  when: (iso: string | null | undefined) => string;
}>(`
<h1>Webhook endpoints</h1>
<p>URLs that receive a signed webhook for each event of the kinds they take: contacts and deals created, updated and deleted, inbox messages received, EHR receipts recorded.</p>
<form method="get" action="/webhook-endpoints/new"><button type="submit">Add endpoint</button></form>
${secretPartial}
${listTable({
  rows: 'endpoints',
  label: 'Webhook endpoints',
  row: 'endpoint',
  columns: ['URL', 'Events', 'State', 'Created', 'Actions'],
  cells: `<td><span class="url"><%= endpoint.url %></span><br><a href="/webhook-endpoints/<%= encodeURIComponent(endpoint.id) %>"><code><%= endpoint.id %></code></a></td>
<td><%= endpoint.events.join(', ') %></td>
<td><% const status = it.statusOf(endpoint); %>${statusPartial}<% if (status.summary) { %><br><span class="muted"><%= status.summary %></span><% } %><% if (endpoint.previousSecretUntil) { %><br><span class="muted">previous secret until <%= it.when(endpoint.previousSecretUntil) %></span><% } %></td>
<td><%= it.when(endpoint.createdAt) %></td>
<td>
${actionsPartial}</td>`,
  empty: `No endpoints yet. Add one to receive a signed webhook for each event of the kinds it takes, every kind unless you choose some: ${eventKindsText}.`,
})}
${pagingPartial}
`);

const detailTemplate = defineTemplate<{
  endpoint: WebhookEndpointInfo;
  status: EndpointStatus;
  secret: SecretFlash | undefined;
  csrfToken: string;
  back: 'detail';
  when: (iso: string | null | undefined) => string;
}>(`
<p><a href="/webhook-endpoints">Webhook endpoints</a></p>
<h1>Endpoint <%= it.endpoint.id %></h1>
${secretPartial}
<% const status = it.status; %>
<% if (status.detail && status.tone !== 'ok') { %><p class="notice <%= status.tone === 'danger' ? 'error' : 'warning' %>"><strong><%= status.label %>.</strong> <%= status.detail %></p><% } %>
<dl class="facts">
<dt>URL</dt><dd><span class="url"><%= it.endpoint.url %></span></dd>
<dt>State</dt><dd>${statusPartial}</dd>
<dt>Failing since</dt><dd><%= it.when(it.endpoint.failingSince) %></dd>
<dt>Events</dt><dd><%= it.endpoint.events.join(', ') %></dd>
<dt>Previous secret signs until</dt><dd><%= it.when(it.endpoint.previousSecretUntil) %></dd>
<dt>Created</dt><dd><%= it.when(it.endpoint.createdAt) %></dd>
<dt>Updated</dt><dd><%= it.when(it.endpoint.updatedAt) %></dd>
</dl>
<h2>Actions</h2>
<% const endpoint = it.endpoint; %>
<div class="actions">
${actionsPartial}
</div>
`);

const removeTemplate = defineTemplate<{ endpoint: WebhookEndpointInfo; csrfToken: string }>(`
<h1>Remove endpoint <%= it.endpoint.id %>?</h1>
<p>URL: <span class="url"><%= it.endpoint.url %></span></p>
<p class="notice warning">Its deliveries and their attempts are deleted with it, and nothing more is sent to it. This cannot be undone; disabling it instead keeps its deliveries.</p>
<form method="post" action="/webhook-endpoints/<%= encodeURIComponent(it.endpoint.id) %>/remove">
${csrfPartial}
<button type="submit" class="danger">Remove endpoint</button>
</form>
<p><a href="/webhook-endpoints">Cancel</a></p>
`);

// No maxlength on the URL: a browser cuts a pasted value to it without a word. A URL over the
// limit comes back here with the message, as typed (checkEndpointUrl says the limit).
const newTemplate = defineTemplate<{
  csrfToken: string;
  kinds: readonly string[];
  url: string;
  events: readonly string[];
  error: string | undefined;
}>(`
<h1>Add endpoint</h1>
<% if (it.error) { %><p class="notice error" id="add-endpoint-error" role="alert"><%= it.error %></p><% } %>
<form method="post" action="/webhook-endpoints" class="stacked">
${csrfPartial}
<label for="url">URL
<input id="url" name="url" type="url" required value="<%= it.url %>"<% if (it.error) { %> aria-invalid="true" aria-describedby="add-endpoint-error"<% } %> placeholder="https://crm.example.com/hooks/followup" autocomplete="off">
</label>
<fieldset>
<legend>Events</legend>
<p class="muted">Leave every box empty to receive every kind.</p>
<% for (const kind of it.kinds) { %>
<label class="check"><input type="checkbox" name="events" value="<%= kind %>"<% if (it.events.includes(kind)) { %> checked<% } %>> <%= kind %></label>
<% } %>
</fieldset>
<button type="submit">Add</button>
</form>
<p><a href="/webhook-endpoints">Back to webhook endpoints</a></p>
`);

// Where an action's form sends the browser back to: the endpoint's page when it came from there
// (field `back`), otherwise the list.
function backTo(request: FastifyRequest<{ Params: { id: string } }>): string {
  return textField(request.body, 'back', 10) === 'detail'
    ? `/webhook-endpoints/${encodeURIComponent(request.params.id)}`
    : '/webhook-endpoints';
}

function eventsField(body: unknown): string[] | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as Record<string, unknown>).events;
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  const kinds = list.filter((item): item is string => typeof item === 'string').slice(0, 50);
  return kinds.length === 0 ? undefined : kinds;
}

/**
 * @internal The Webhook endpoints pages (users.manage): the list, **Add endpoint** (the signing
 * secret shown once, after a redirect), **Rotate secret**, disable and enable: the endpoint
 * store, as `followup-server endpoints …` uses it.
 */
export const webhookEndpointsPages: WebPage =
  ({ database, clock, newId }) =>
  async (app: FastifyInstance) => {
    const guard = pageRoute('users.manage');
    const endpoints = createEndpointStore({ database, clock, newId });

    app.get('/webhook-endpoints', guard, async (request, reply) => {
      const page = listPage(request.query, '/webhook-endpoints');
      const shown = (await endpoints.list()).slice(page.offset, page.offset + page.limit);
      const flash = await recallFlash(request, reply, { database, clock });
      return sendPage(request, reply, {
        title: 'Webhook endpoints',
        body: listTemplate.render({
          endpoints: shown,
          secret: flash?.kind === 'signing-secret' ? (flash as unknown as SecretFlash) : undefined,
          csrfToken: pageContext(request).csrfToken,
          back: 'list',
          statusOf: endpointStatus,
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
      const flash = await recallFlash(request, reply, { database, clock });
      return sendPage(request, reply, {
        title: `Endpoint ${endpoint.id}`,
        body: detailTemplate.render({
          endpoint,
          status: endpointStatus(endpoint),
          secret:
            flash?.kind === 'signing-secret' && flash.endpointId === endpoint.id
              ? (flash as unknown as SecretFlash)
              : undefined,
          csrfToken: pageContext(request).csrfToken,
          back: 'detail',
          when,
        }),
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
          return reply.redirect('/webhook-endpoints', 303);
        }),
    );

    for (const action of ['disable', 'enable'] as const) {
      app.post<{ Params: { id: string } }>(
        `/webhook-endpoints/:id/${action}`,
        guard,
        async (request, reply) =>
          withPageErrors(request, reply, backTo(request), async () => {
            await endpoints[action](request.params.id, actorOf(request));
            return reply.redirect(backTo(request), 303);
          }),
      );
    }
  };

import type { FastifyInstance } from 'fastify';
import {
  createDeliveryStore,
  type DeliveryAttemptInfo,
  type DeliveryInfo,
  deliveryStates,
} from '../../delivery/deliveries.js';
import { createEndpointStore } from '../../delivery/webhook-endpoints.js';
import { FollowUpServerError } from '../../errors.js';
import { pageContext, sendPage } from '../page-context.js';
import { defineTemplate } from '../templates.js';
import { listPage, listTable, type Paging, pagingPartial } from './list-page.js';
import {
  actorOf,
  csrfPartial,
  pageRoute,
  sendNotFoundPage,
  textField,
  when,
  withPageErrors,
} from './page-helpers.js';
import type { WebPage } from './web-page.js';
import { eventKindsText } from './webhook-endpoints-templates.js';

const listTemplate = defineTemplate<{
  deliveries: DeliveryInfo[];
  endpoints: { id: string; url: string }[];
  states: readonly string[];
  filters: { endpoint: string; state: string };
  paging: Paging;
  csrfToken: string;
  when: (iso: string | null | undefined) => string;
}>(`
<h1>Deliveries</h1>
<p>Each webhook sent to each endpoint, newest first, with its attempts.</p>
<form method="get" action="/deliveries" class="filters">
<label for="endpoint">Endpoint
<select id="endpoint" name="endpoint">
<option value="">Any</option>
<% for (const endpoint of it.endpoints) { %><option value="<%= endpoint.id %>"<%= endpoint.id === it.filters.endpoint ? ' selected' : '' %>><%= endpoint.url %> (<%= endpoint.id %>)</option>
<% } %>
</select>
</label>
<label for="state">State
<select id="state" name="state">
<option value="">Any</option>
<% for (const state of it.states) { %><option value="<%= state %>"<%= state === it.filters.state ? ' selected' : '' %>><%= state %></option>
<% } %>
</select>
</label>
<button type="submit">Filter</button>
</form>
${listTable({
  rows: 'deliveries',
  label: 'Deliveries',
  row: 'delivery',
  columns: ['Delivery', 'Event', 'Endpoint', 'State', 'Attempts', 'Last result', 'Created'],
  cells: `<td><a href="/deliveries/<%= encodeURIComponent(delivery.id) %>"><%= delivery.id %></a></td>
<td><%= delivery.event %></td>
<td><code><%= delivery.endpointId %></code></td>
<td><%= delivery.state %></td>
<td><%= delivery.attempts %></td>
<td><%= delivery.lastStatus ?? delivery.lastError ?? '—' %></td>
<td><%= it.when(delivery.createdAt) %></td>`,
  empty: `<% if (it.filters.endpoint || it.filters.state) { %>No delivery matches these filters.<% } else { %>No deliveries yet. Add a webhook endpoint; each event then makes one delivery to every endpoint that takes its kind (${eventKindsText}).<% } %>`,
})}
${pagingPartial}
<% if (it.endpoints.length > 0) { %>
<h2>Recover failed deliveries</h2>
<p>Sends again, in order, every delivery of an endpoint created since a time that is dead or still failing: after an outage of the receiver, for example.</p>
<form method="post" action="/deliveries/recover" class="filters">
${csrfPartial}
<label for="recover-endpoint">Endpoint
<select id="recover-endpoint" name="endpoint" required>
<% for (const endpoint of it.endpoints) { %><option value="<%= endpoint.id %>"<%= endpoint.id === it.filters.endpoint ? ' selected' : '' %>><%= endpoint.url %> (<%= endpoint.id %>)</option>
<% } %>
</select>
</label>
<label for="since">Since (UTC)
<input id="since" name="since" required maxlength="40" placeholder="2026-03-01T00:00:00Z">
</label>
<button type="submit">Recover</button>
</form>
<% } %>
`);

const deliveryTemplate = defineTemplate<{
  delivery: DeliveryInfo;
  attempts: DeliveryAttemptInfo[];
  csrfToken: string;
  when: (iso: string | null | undefined) => string;
}>(`
<p><a href="/deliveries">Deliveries</a></p>
<h1>Delivery <%= it.delivery.id %></h1>
<dl class="facts">
<dt>Event</dt><dd><%= it.delivery.event %> <code><%= it.delivery.eventId %></code></dd>
<dt>Endpoint</dt><dd><code><%= it.delivery.endpointId %></code></dd>
<dt>State</dt><dd><%= it.delivery.state %></dd>
<dt>Next attempt</dt><dd><%= it.delivery.state === 'pending' ? it.when(it.delivery.nextAttemptAt) : '—' %></dd>
<dt>Delivered</dt><dd><%= it.when(it.delivery.deliveredAt) %></dd>
</dl>
<form method="post" action="/deliveries/<%= encodeURIComponent(it.delivery.id) %>/retry">
${csrfPartial}
<button type="submit">Retry now</button>
</form>
<h2>Attempts</h2>
${listTable({
  rows: 'attempts',
  row: 'attempt',
  label: 'Attempts',
  columns: ['Time', 'Status code', 'Duration', 'Error', 'Response (first 4 KiB)'],
  cells: `<td><%= it.when(attempt.startedAt) %></td><td><%= attempt.status ?? '—' %></td><td><%= attempt.durationMs %> ms</td><td><%= attempt.error ?? '' %></td><td><% if (attempt.responseBody) { %><pre><%= attempt.responseBody %></pre><% } %></td>`,
  empty: 'No attempt yet: the delivery worker sends it shortly.',
})}
`);

/**
 * @internal The Deliveries pages (webhooks.manage): filter by endpoint and state, a delivery's
 * attempts, **Retry now**: the delivery store, as `followup-server deliveries …` uses it.
 */
export const deliveriesPages: WebPage =
  ({ database, clock, newId }) =>
  async (app: FastifyInstance) => {
    const guard = pageRoute('webhooks.manage');
    const deliveries = createDeliveryStore({ database, clock, newId });
    const endpoints = createEndpointStore({ database, clock, newId });

    app.get('/deliveries', guard, async (request, reply) =>
      withPageErrors(request, reply, '/deliveries', async () => {
        const filters = {
          endpoint: textField(request.query, 'endpoint', 100),
          state: textField(request.query, 'state', 20),
        };
        const page = listPage(request.query, '/deliveries', filters);
        const list = await deliveries.list({
          limit: page.limit,
          offset: page.offset,
          newestFirst: true,
          ...(filters.endpoint ? { endpointId: filters.endpoint } : {}),
          ...(filters.state ? { state: filters.state } : {}),
        });
        return sendPage(request, reply, {
          title: 'Deliveries',
          body: listTemplate.render({
            deliveries: list,
            endpoints: (await endpoints.list()).map(({ id, url }) => ({ id, url })),
            states: deliveryStates,
            filters,
            paging: page.paging(list.length),
            csrfToken: pageContext(request).csrfToken,
            when,
          }),
        });
      }),
    );

    app.get<{ Params: { id: string } }>('/deliveries/:id', guard, async (request, reply) => {
      const delivery = await deliveries.get(request.params.id);
      if (!delivery) return sendNotFoundPage(request, reply, '/deliveries');
      return sendPage(request, reply, {
        title: `Delivery ${delivery.id}`,
        body: deliveryTemplate.render({
          delivery,
          attempts: await deliveries.attempts(delivery.id),
          csrfToken: pageContext(request).csrfToken,
          when,
        }),
      });
    });

    app.post('/deliveries/recover', guard, async (request, reply) =>
      withPageErrors(request, reply, '/deliveries', async () => {
        const endpointId = textField(request.body, 'endpoint', 100);
        const since = textField(request.body, 'since', 40);
        if (
          !/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/.test(since)
        ) {
          throw new FollowUpServerError({
            code: 'invalid_since',
            message: 'Since: an ISO 8601 date or time, such as 2026-03-01T00:00:00Z (UTC).',
          });
        }
        // A time without a zone is read as UTC, as the form says.
        const zoned = /T/.test(since) && !/(Z|[+-]\d{2}:\d{2})$/.test(since) ? `${since}Z` : since;
        await deliveries.recover({ endpointId, since: new Date(zoned) }, actorOf(request));
        return reply.redirect(`/deliveries?endpoint=${encodeURIComponent(endpointId)}`, 303);
      }),
    );

    app.post<{ Params: { id: string } }>('/deliveries/:id/retry', guard, async (request, reply) => {
      const back = `/deliveries/${encodeURIComponent(request.params.id)}`;
      return withPageErrors(request, reply, back, async () => {
        await deliveries.retry(request.params.id, actorOf(request));
        return reply.redirect(back, 303);
      });
    });
  };

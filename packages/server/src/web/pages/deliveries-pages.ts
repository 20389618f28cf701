import type { FastifyInstance } from 'fastify';
import {
  createDeliveryStore,
  type DeliveryAttemptInfo,
  type DeliveryInfo,
  deliveryStates,
} from '../../delivery/deliveries.js';
import { deliveryAsSent } from '../../delivery/delivery-detail.js';
import { retryDelivery } from '../../delivery/retry-delivery.js';
import { createEndpointStore } from '../../delivery/webhook-endpoints.js';
import { FollowUpServerError } from '../../errors.js';
import { findDeliveryContent } from '../../stores/delivery-list-store.js';
import { pageContext, sendPage } from '../page-context.js';
import { defineTemplate } from '../templates.js';
import {
  type DeliveryListData,
  deliveryFiltersPartial,
  deliveryTablePartial,
} from './delivery-list-template.js';
import {
  answerStart,
  type DeliveryStatus,
  deliveryStatus,
  deliveryStatusPartial,
  prettyJson,
} from './delivery-status.js';
import { listPage, listTable, type Paging, pagingPartial } from './list-page.js';
import {
  actorOf,
  csrfPartial,
  pageRoute,
  recallNotice,
  rememberNotice,
  sendNotFoundPage,
  textField,
  when,
  withPageErrors,
} from './page-helpers.js';
import { idPartial } from './readable-partials.js';
import { shortId } from './short-id.js';
import type { WebPage } from './web-page.js';
import { eventKindsText } from './webhook-endpoints-templates.js';

// The endpoint of a delivery (data: `delivery`, `it.urlOf`): its URL as text (a stored value is
// never an href), linked to our page about it.
const endpointPartial = `<% const url = it.urlOf(delivery.endpointId); %><a href="/webhook-endpoints/<%= encodeURIComponent(delivery.endpointId) %>"><% if (url) { %><span class="url"><%= url %></span><% } else { %><code><%= it.shortId(delivery.endpointId) %></code><% } %></a>`;

const listTemplate = defineTemplate<
  DeliveryListData & {
    deliveries: DeliveryInfo[];
    urlOf: (endpointId: string) => string | undefined;
    statusOf: (delivery: DeliveryInfo) => DeliveryStatus;
    filters: { endpoint: string; state: string };
    paging: Paging;
    csrfToken: string;
    when: (iso: string | null | undefined) => string;
    shortId: (id: string) => string;
  }
>(`
<h1>Deliveries</h1>
<p>Each webhook sent to each endpoint, newest first, with its attempts.</p>
${deliveryFiltersPartial({ action: '/deliveries', kinds: false })}
${deliveryTablePartial({
  cells: {
    delivery: idPartial('delivery.id', {
      href: "'/deliveries/' + encodeURIComponent(delivery.id)",
    }),
    event: '<code class="action"><%= delivery.event %></code>',
    endpoint: endpointPartial,
    state: `<% const status = it.statusOf(delivery); %>${deliveryStatusPartial}`,
    created: '<span class="when"><%= it.when(delivery.createdAt) %></span>',
  },
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
  status: DeliveryStatus;
  endpointUrl: string | undefined;
  body: string;
  headers: [string, string][];
  attempts: DeliveryAttemptInfo[];
  csrfToken: string;
  when: (iso: string | null | undefined) => string;
  shortId: (id: string) => string;
  answerStart: (answer: string | null) => string;
}>(`
<p><a href="/deliveries">Deliveries</a></p>
<h1>Delivery of <span class="action"><%= it.delivery.event %></span></h1>
<% const delivery = it.delivery; const status = it.status; %>
<dl class="facts">
<dt>Delivery</dt><dd>${idPartial('delivery.id')}</dd>
<dt>Event</dt><dd><code class="action"><%= delivery.event %></code> ${idPartial('delivery.eventId')}</dd>
<dt>Endpoint</dt><dd><% const url = it.endpointUrl; %><a href="/webhook-endpoints/<%= encodeURIComponent(delivery.endpointId) %>"><% if (url) { %><span class="url"><%= url %></span><% } else { %><code><%= it.shortId(delivery.endpointId) %></code><% } %></a></dd>
<dt>State</dt><dd>${deliveryStatusPartial}</dd>
<dt>Attempts</dt><dd><%= delivery.attempts %></dd>
<dt>Next attempt</dt><dd><%= delivery.state === 'pending' ? it.when(delivery.nextAttemptAt) : '—' %></dd>
<dt>Delivered</dt><dd><%= it.when(delivery.deliveredAt) %></dd>
</dl>
<% if (delivery.state === 'delivered') { %>
<form method="post" action="/deliveries/<%= encodeURIComponent(delivery.id) %>/retry" class="stacked">
${csrfPartial}
<label class="check"><input type="checkbox" name="confirm" value="yes" required> It arrived: send it again anyway, with the same id</label>
<button type="submit" class="secondary">Send again</button>
</form>
<% } else { %>
<form method="post" action="/deliveries/<%= encodeURIComponent(delivery.id) %>/retry">
${csrfPartial}
<button type="submit">Retry now</button>
</form>
<% } %>
<h2>Body sent</h2>
<pre class="scroll" role="region" aria-label="Body sent" tabindex="0"><%= it.body %></pre>
<h2>Headers sent</h2>
<p class="muted">As the last attempt sent them (or the next will); signatures are shown as [redacted].</p>
<dl class="facts headers">
<% for (const [name, value] of it.headers) { %><dt><code><%= name %></code></dt><dd><code><%= value %></code></dd>
<% } %></dl>
<h2>Attempts</h2>
${listTable({
  rows: 'attempts',
  row: 'attempt',
  label: 'Attempts',
  columns: ['Time', 'Status code', 'Duration', 'Error', 'Answer (start)'],
  cells: `<td><span class="when"><%= it.when(attempt.startedAt) %></span></td><td><%= attempt.status ?? '—' %></td><td><%= attempt.durationMs %> ms</td><td><%= attempt.error ?? '' %></td><td><% if (attempt.responseBody) { %><pre><%= it.answerStart(attempt.responseBody) %></pre><% } %></td>`,
  empty: 'No attempt yet: the delivery worker sends it shortly.',
})}
`);

/**
 * @internal The Deliveries pages (webhooks.manage): filter by endpoint and state; a delivery's
 * body and headers as sent (signatures redacted) and its attempts; **Retry now** for one not
 * delivered, **Send again** (confirmed by a box) for one delivered: the delivery store, as
 * `followup-server deliveries …` and `POST /api/deliveries/{id}/retry` (with `force`) use it.
 */
export const deliveriesPages: WebPage =
  ({ database, clock, newId, onOutboxEvent }) =>
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
        const known = (await endpoints.list()).map(({ id, url }) => ({ id, url }));
        const urls = new Map(known.map((endpoint) => [endpoint.id, endpoint.url]));
        return sendPage(request, reply, {
          title: 'Deliveries',
          notice: await recallNotice(request, reply, { database, clock }),
          body: listTemplate.render({
            deliveries: list,
            endpoints: known,
            urlOf: (endpointId) => urls.get(endpointId),
            statusOf: deliveryStatus,
            states: deliveryStates,
            filters,
            paging: page.paging(list.length),
            csrfToken: pageContext(request).csrfToken,
            when,
            shortId,
          }),
        });
      }),
    );

    app.get<{ Params: { id: string } }>('/deliveries/:id', guard, async (request, reply) => {
      const [delivery, content] = await Promise.all([
        deliveries.get(request.params.id),
        findDeliveryContent(database, request.params.id),
      ]);
      if (!delivery || !content) return sendNotFoundPage(request, reply, '/deliveries');
      // What was sent, as GET /api/deliveries/{id} shows it: the signatures redacted.
      const sent = deliveryAsSent(delivery, content, clock.now());
      return sendPage(request, reply, {
        title: `Delivery ${shortId(delivery.id)}`,
        notice: await recallNotice(request, reply, { database, clock }),
        body: deliveryTemplate.render({
          delivery,
          status: deliveryStatus(delivery),
          endpointUrl: (await endpoints.get(delivery.endpointId))?.url,
          body: prettyJson(sent.body),
          headers: Object.entries(sent.headers),
          attempts: await deliveries.attempts(delivery.id),
          csrfToken: pageContext(request).csrfToken,
          when,
          shortId,
          answerStart,
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
        const recovered = await deliveries.recover(
          { endpointId, since: new Date(zoned) },
          actorOf(request),
        );
        const count = recovered.length;
        await rememberNotice(
          request,
          reply,
          { database, clock, newId },
          `${count} ${count === 1 ? 'delivery' : 'deliveries'} queued to be sent again.`,
        );
        return reply.redirect(`/deliveries?endpoint=${encodeURIComponent(endpointId)}`, 303);
      }),
    );

    app.post<{ Params: { id: string } }>('/deliveries/:id/retry', guard, async (request, reply) => {
      const back = `/deliveries/${encodeURIComponent(request.params.id)}`;
      return withPageErrors(request, reply, back, async () => {
        // A delivered one is sent again only when the form's box says so (Send again).
        const confirmed = textField(request.body, 'confirm', 10) === 'yes';
        try {
          await retryDelivery(deliveries, request.params.id, {
            actor: actorOf(request),
            force: confirmed,
            onOutboxEvent,
          });
        } catch (error) {
          if (FollowUpServerError.isInstance(error) && error.code === 'delivery_delivered') {
            throw new FollowUpServerError({
              code: 'conflict',
              message:
                'This delivery arrived already. To send it again, tick the box by Send again on its page.',
            });
          }
          throw error;
        }
        await rememberNotice(
          request,
          reply,
          { database, clock, newId },
          `Delivery ${request.params.id} queued to be sent again now.`,
        );
        return reply.redirect(back, 303);
      });
    });
  };

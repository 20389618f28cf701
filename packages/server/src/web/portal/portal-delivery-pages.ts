import { DELIVERY_STATES, LIST_LIMITS, WEBHOOK_EVENT_KINDS } from '@followup/sdk';
import type { FastifyInstance } from 'fastify';
import type { DeliveryInfo } from '../../delivery/deliveries.js';
import { TEST_EVENT_KIND } from '../../delivery/test-event.js';
import type { PortalActions, PortalDelivery } from '../../portal/portal-actions.js';
import { ProblemError } from '../../problem-error.js';
import {
  type DeliveryListData,
  deliveryFiltersPartial,
  deliveryTablePartial,
} from '../pages/delivery-list-template.js';
import { listTable } from '../pages/list-page.js';
import { csrfPartial, textField, when } from '../pages/page-helpers.js';
import { defineTemplate } from '../templates.js';
import { decodePortalCursor, encodePortalCursor } from './portal-form-fields.js';
import { portalSessionOf, sendPortalPage, withPortalErrors } from './portal-layout.js';
import { portalCsrfToken } from './portal-session-cookie.js';

const deliveryKinds: readonly string[] = [...WEBHOOK_EVENT_KINDS, TEST_EVENT_KIND];
const PAGE_SIZE = 50;

const listTemplate = defineTemplate<
  DeliveryListData & {
    deliveries: DeliveryInfo[];
    kinds: readonly string[];
    filters: { endpoint: string; state: string; kind: string };
    next: string | null;
    when: (iso: string | null | undefined) => string;
  }
>(`
<h1>Deliveries</h1>
<p>Each webhook sent to your endpoints, oldest first, with its attempts.</p>
${deliveryFiltersPartial({ action: '/portal/deliveries', kinds: true })}
${deliveryTablePartial({
  cells: {
    delivery:
      '<a href="/portal/deliveries/<%= encodeURIComponent(delivery.id) %>"><%= delivery.id %></a>',
    event: '<%= delivery.event %>',
    endpoint: '<code><%= delivery.endpointId %></code>',
    state: '<%= delivery.state %>',
    created: '<%= it.when(delivery.createdAt) %>',
  },
  empty: `<% if (it.filters.endpoint || it.filters.state || it.filters.kind) { %>No delivery matches these filters.<% } else { %>No deliveries yet. Each event of a kind an endpoint takes makes one; <a href="/portal/endpoints">send a test event</a> to see one now.<% } %>`,
})}
<% if (it.next) { %><nav aria-label="Pages"><a href="<%= it.next %>">Next page</a></nav><% } %>
`);

const deliveryTemplate = defineTemplate<{
  delivery: PortalDelivery;
  csrfToken: string;
  when: (iso: string | null | undefined) => string;
}>(`
<p><a href="/portal/deliveries">Deliveries</a></p>
<h1>Delivery <%= it.delivery.id %></h1>
<dl class="facts">
<dt>Event</dt><dd><%= it.delivery.event %> <code><%= it.delivery.eventId %></code></dd>
<dt>Endpoint</dt><dd><a href="/portal/endpoints/<%= encodeURIComponent(it.delivery.endpointId) %>"><code><%= it.delivery.endpointId %></code></a></dd>
<dt>State</dt><dd><%= it.delivery.state %></dd>
<dt>Next attempt</dt><dd><%= it.delivery.state === 'pending' ? it.when(it.delivery.nextAttemptAt) : '—' %></dd>
<dt>Delivered</dt><dd><%= it.when(it.delivery.deliveredAt) %></dd>
</dl>
<form method="post" action="/portal/deliveries/<%= encodeURIComponent(it.delivery.id) %>/retry">
${csrfPartial}
<button type="submit">Retry now</button>
</form>
<h2>Body</h2>
<pre class="body"><%= it.delivery.body %></pre>
<h2>Headers</h2>
<dl class="facts">
<% for (const [name, value] of Object.entries(it.delivery.headers)) { %><dt><%= name %></dt><dd><code><%= value %></code></dd>
<% } %>
</dl>
<h2>Attempts</h2>
${listTable({
  rows: 'delivery.attemptList',
  row: 'attempt',
  label: 'Attempts',
  columns: ['Time', 'Status code', 'Duration', 'Error', 'Response (first 4 KiB)'],
  cells: `<td><%= it.when(attempt.startedAt) %></td><td><%= attempt.status ?? '—' %></td><td><%= attempt.durationMs %> ms</td><td><%= attempt.error ?? '' %></td><td><% if (attempt.responseBody) { %><pre><%= attempt.responseBody %></pre><% } %></td>`,
  empty: 'No attempt yet: it is sent shortly.',
})}
`);

function oneOf(value: string, allowed: readonly string[], name: string): string | undefined {
  if (value === '') return undefined;
  if (allowed.includes(value)) return value;
  throw new ProblemError({
    code: 'validation_failed',
    detail: 'The request is not valid: see errors.',
    errors: [{ path: name, message: `${name} must be one of ${allowed.join(', ')}` }],
  });
}

/**
 * @internal The portal's Deliveries pages: the deliveries to the subscriber's endpoints (filters
 * endpoint, state, kind), one delivery with its body, headers (signatures redacted) and
 * attempts, and **Retry now**.
 */
export function registerPortalDeliveryPages(
  app: FastifyInstance,
  options: { actions: PortalActions },
): void {
  const { actions } = options;

  app.get('/portal/deliveries', async (request, reply) =>
    withPortalErrors(request, reply, '/portal/deliveries', async () => {
      const { subscriber } = portalSessionOf(request);
      const filters = {
        endpoint: textField(request.query, 'endpoint', 100),
        state: textField(request.query, 'state', 20),
        kind: textField(request.query, 'kind', 40),
      };
      const page = await actions.listDeliveries(subscriber, {
        endpointId: filters.endpoint === '' ? undefined : filters.endpoint,
        state: oneOf(filters.state, DELIVERY_STATES, 'state'),
        kind: oneOf(filters.kind, deliveryKinds, 'kind'),
        after: decodePortalCursor(textField(request.query, 'after', 200)),
        limit: PAGE_SIZE,
      });
      const endpoints = await actions.listEndpoints(subscriber, {
        after: undefined,
        limit: LIST_LIMITS.maxLimit,
      });
      const query = new URLSearchParams(
        Object.entries(filters).filter(([, value]) => value !== ''),
      );
      if (page.next) query.set('after', encodePortalCursor(page.next));
      return sendPortalPage(request, reply, {
        title: 'Deliveries',
        body: listTemplate.render({
          deliveries: page.items,
          endpoints: endpoints.items.map(({ id, url }) => ({ id, url })),
          states: DELIVERY_STATES,
          kinds: deliveryKinds,
          filters,
          next: page.next ? `/portal/deliveries?${query.toString()}` : null,
          when,
        }),
      });
    }),
  );

  app.get<{ Params: { id: string } }>('/portal/deliveries/:id', async (request, reply) =>
    withPortalErrors(request, reply, '/portal/deliveries', async () => {
      const session = portalSessionOf(request);
      const delivery = await actions.getDelivery(session.subscriber, request.params.id);
      return sendPortalPage(request, reply, {
        title: `Delivery ${delivery.id}`,
        body: deliveryTemplate.render({ delivery, csrfToken: portalCsrfToken(session), when }),
      });
    }),
  );

  app.post<{ Params: { id: string } }>('/portal/deliveries/:id/retry', async (request, reply) => {
    const back = `/portal/deliveries/${encodeURIComponent(request.params.id)}`;
    return withPortalErrors(request, reply, back, async () => {
      await actions.retryDelivery(portalSessionOf(request).subscriber, request.params.id);
      return reply.redirect(back, 303);
    });
  });
}

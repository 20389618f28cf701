import type { DeliveryInfo } from '../../delivery/deliveries.js';
import { deliverableEvents } from '../../delivery/event-list.js';
import type { WebhookEndpointInfo } from '../../delivery/webhook-endpoint-info.js';
import { ALL_EVENTS } from '../../stores/webhook-endpoint-store.js';
import { defineTemplate } from '../templates.js';
import { type DeliveryStatus, deliveryStatusPartial } from './delivery-status.js';
import type { EndpointStatus, endpointStatus } from './endpoint-status.js';
import { listTable, type Paging, pagingPartial } from './list-page.js';
import { csrfPartial } from './page-helpers.js';
import { idPartial } from './readable-partials.js';
import { rowMenu } from './row-menu.js';

// The templates of the Webhook endpoints pages (`webhook-endpoints-pages.ts`).

/** @internal The signing secret shown once after **Add endpoint** or **Rotate secret**. */
export interface SecretFlash {
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

/**
 * @internal The events an endpoint takes, by name: `All events` for the wildcard (`*`, every
 * kind, those of later releases too), otherwise the kinds, comma-separated.
 */
export function eventNames(events: readonly string[]): string {
  return events.includes(ALL_EVENTS) ? 'All events' : events.join(', ');
}

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
// forms come back to, `list` or `detail`): the primary action (Send test event, or Enable once
// disabled), then the others; Disable and Remove lead to their confirm pages.
const primaryActionPartial = `<% if (endpoint.state === 'active') { %><form method="post" action="/webhook-endpoints/<%= encodeURIComponent(endpoint.id) %>/test" class="inline">
${csrfPartial}
<input type="hidden" name="back" value="<%= it.back %>">
<button type="submit" class="secondary" aria-label="Send test event to <%= endpoint.id %>">Send test event</button>
</form><% } else { %><form method="post" action="/webhook-endpoints/<%= encodeURIComponent(endpoint.id) %>/enable" class="inline">
${csrfPartial}
<input type="hidden" name="back" value="<%= it.back %>">
<button type="submit" class="secondary" aria-label="Enable <%= endpoint.id %>">Enable</button>
</form><% } %>`;
const otherActionsPartial = `<form method="post" action="/webhook-endpoints/<%= encodeURIComponent(endpoint.id) %>/rotate-secret" class="inline">
${csrfPartial}
<input type="hidden" name="back" value="<%= it.back %>">
<button type="submit" class="secondary" aria-label="Rotate secret of <%= endpoint.id %>">Rotate secret</button>
</form>
<% if (endpoint.state === 'active') { %><form method="get" action="/webhook-endpoints/<%= encodeURIComponent(endpoint.id) %>/disable" class="inline">
<input type="hidden" name="back" value="<%= it.back %>">
<button type="submit" class="danger-outline" aria-label="Disable <%= endpoint.id %>">Disable</button>
</form><% } %>
<form method="get" action="/webhook-endpoints/<%= encodeURIComponent(endpoint.id) %>/remove" class="inline">
<button type="submit" class="danger-outline" aria-label="Remove <%= endpoint.id %>">Remove</button>
</form>
<a href="/deliveries?endpoint=<%= encodeURIComponent(endpoint.id) %>">Deliveries</a>
`;
const actionsPartial = `${primaryActionPartial}
${otherActionsPartial}`;
const rowActionsPartial = `<div class="row-actions">
${primaryActionPartial}
${rowMenu({ label: 'endpoint.id', items: otherActionsPartial })}
</div>`;

// The badge of an endpoint's state (data: `status`, an EndpointStatus).
const statusPartial = `<span class="badge <%= status.tone %>"><%= status.label %></span>`;

/** @internal A subscriber portal link, shown once after **Portal link**. */
export interface PortalLinkFlash {
  subscriber: string;
  url: string;
  expiresAt: string;
}

// The **Portal link** form and the link it made, shown once (data: `it.portalLink`).
const portalLinkPartial = `<section class="portal-link" aria-labelledby="portal-link-form-heading">
<h2 id="portal-link-form-heading">Portal link</h2>
<p>A one-time link into the subscriber portal, where a subscriber manages the endpoints that carry its key, their deliveries and replays, without an account.</p>
<form method="post" action="/webhook-endpoints/portal-link" class="filters">
${csrfPartial}
<label for="portal-subscriber">Subscriber
<input id="portal-subscriber" name="subscriber" required maxlength="64" pattern="[a-z0-9_\\-]{1,64}" autocomplete="off" placeholder="acme">
</label>
<label for="portal-expiry">Expires in (minutes)
<input id="portal-expiry" name="expiresInMinutes" inputmode="numeric" value="60" maxlength="4">
</label>
<button type="submit">Make portal link</button>
</form>
</section>
<% if (it.portalLink) { %>
<section class="notice warning" aria-labelledby="portal-link-heading">
<h2 id="portal-link-heading">Portal link of <%= it.portalLink.subscriber %></h2>
<p><strong>Copy it now: this is the only time it is shown.</strong> It works once, until <%= it.when(it.portalLink.expiresAt) %>, and opens an 8-hour portal session.</p>
<p class="secret" id="portal-link-url"><%= it.portalLink.url %></p>
<button type="button" class="secondary" data-copy="portal-link-url" data-js-only>Copy link</button>
</section>
<% } %>`;

/** @internal The list of webhook endpoints, a page at a time. */
export const listTemplate = defineTemplate<{
  endpoints: WebhookEndpointInfo[];
  secret: SecretFlash | undefined;
  portalLink: PortalLinkFlash | undefined;
  csrfToken: string;
  back: 'list';
  statusOf: typeof endpointStatus;
  eventNames: typeof eventNames;
  paging: Paging;
  when: (iso: string | null | undefined) => string;
}>(`
<h1>Webhook endpoints</h1>
<p>URLs that receive a signed webhook for each event of the kinds they take: contacts and deals created, updated and deleted, contacts erased, inbox messages received, EHR receipts recorded.</p>
<form method="get" action="/webhook-endpoints/new"><button type="submit">Add endpoint</button></form>
${portalLinkPartial}
${secretPartial}
${listTable({
  rows: 'endpoints',
  label: 'Webhook endpoints',
  narrow: 'cards',
  row: 'endpoint',
  columns: ['URL', 'Events', 'State', 'Created', 'Actions'],
  cells: `<td><span class="url"><%= endpoint.url %></span><br><a href="/webhook-endpoints/<%= encodeURIComponent(endpoint.id) %>"><code><%= endpoint.id %></code></a></td>
<td><%= it.eventNames(endpoint.events) %></td>
<td><% const status = it.statusOf(endpoint); %>${statusPartial}<% if (status.summary) { %><br><span class="muted"><%= status.summary %></span><% } %><% if (endpoint.previousSecretUntil) { %><br><span class="muted">previous secret until <%= it.when(endpoint.previousSecretUntil) %></span><% } %></td>
<td><%= it.when(endpoint.createdAt) %></td>
<td>
${rowActionsPartial}</td>`,
  empty: `No endpoints yet. Add one to receive a signed webhook for each event of the kinds it takes, every kind unless you choose some: ${eventKindsText}.`,
})}
${pagingPartial}
`);

/** @internal How an endpoint's attempts went over the last 24 hours, for its page. */
export interface EndpointSuccess {
  attempts: number;
  succeeded: number;
}

/** @internal One endpoint's page: its facts, its actions, and its deliveries. */
export const detailTemplate = defineTemplate<{
  endpoint: WebhookEndpointInfo;
  status: EndpointStatus;
  secret: SecretFlash | undefined;
  rotation: string;
  success: EndpointSuccess;
  deliveries: DeliveryInfo[];
  deliveryStatusOf: (delivery: DeliveryInfo) => DeliveryStatus;
  states: readonly string[];
  state: string;
  paging: Paging;
  csrfToken: string;
  back: 'detail';
  when: (iso: string | null | undefined) => string;
  shortId: (id: string) => string;
  eventNames: typeof eventNames;
}>(`
<p><a href="/webhook-endpoints">Webhook endpoints</a></p>
<h1>Endpoint <span class="id" title="<%= it.endpoint.id %>"><%= it.shortId(it.endpoint.id) %></span></h1>
${secretPartial}
<% const status = it.status; %>
<% if (status.detail && status.tone !== 'ok') { %><p class="notice <%= status.tone === 'danger' ? 'error' : 'warning' %>"><strong><%= status.label %>.</strong> <%= status.detail %></p><% } %>
<dl class="facts">
<dt>URL</dt><dd><span class="url"><%= it.endpoint.url %></span></dd>
<dt>Id</dt><dd>${idPartial('it.endpoint.id')}</dd>
<dt>State</dt><dd>${statusPartial}</dd>
<dt>Success rate</dt><dd><% if (it.success.attempts === 0) { %>No attempt in the last 24 hours.<% } else { %><span class="rate"><%= Math.floor((it.success.succeeded / it.success.attempts) * 1000) / 10 %> %</span> of <%= it.success.attempts %> attempt<%= it.success.attempts === 1 ? '' : 's' %> in the last 24 hours succeeded (<%= it.success.succeeded %>).<% } %></dd>
<dt>Failing since</dt><dd><%= it.when(it.endpoint.failingSince) %></dd>
<dt>Events</dt><dd><%= it.eventNames(it.endpoint.events) %></dd>
<dt>Signing secret</dt><dd><%= it.rotation %></dd>
<dt>Created</dt><dd><%= it.when(it.endpoint.createdAt) %></dd>
<dt>Updated</dt><dd><%= it.when(it.endpoint.updatedAt) %></dd>
</dl>
<h2>Actions</h2>
<% const endpoint = it.endpoint; %>
<div class="actions">
${actionsPartial}
</div>
<h2 id="deliveries">Deliveries</h2>
<form method="get" action="/webhook-endpoints/<%= encodeURIComponent(it.endpoint.id) %>#deliveries" class="filters">
<label for="state">State
<select id="state" name="state">
<option value="">Any</option>
<% for (const state of it.states) { %><option value="<%= state %>"<%= state === it.state ? ' selected' : '' %>><%= state %></option>
<% } %>
</select>
</label>
<button type="submit">Filter</button>
</form>
${listTable({
  rows: 'deliveries',
  label: 'Deliveries of this endpoint',
  row: 'delivery',
  columns: ['Delivery', 'Event', 'State', 'Attempts', 'Last result', 'Created'],
  cells: `<td>${idPartial('delivery.id', { href: "'/deliveries/' + encodeURIComponent(delivery.id)" })}</td>
<td><code class="action"><%= delivery.event %></code></td>
<td><% const status = it.deliveryStatusOf(delivery); %>${deliveryStatusPartial}</td>
<td><%= delivery.attempts %></td>
<td><%= delivery.lastStatus ?? delivery.lastError ?? '—' %></td>
<td><span class="when"><%= it.when(delivery.createdAt) %></span></td>`,
  empty:
    "<%= it.state ? 'No delivery of this endpoint is in this state. Choose Any to see them all.' : 'No deliveries yet: each event of the kinds it takes makes one. Send a test event to see one.' %>",
})}
${pagingPartial}
`);

/** @internal The confirmation of **Remove**. */
export const removeTemplate = defineTemplate<{ endpoint: WebhookEndpointInfo; csrfToken: string }>(`
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
/** @internal The **Add endpoint** form. */
export const newTemplate = defineTemplate<{
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

import type { WebhookEndpointInfo } from '../../delivery/webhook-endpoint-info.js';
import type { EndpointStatus } from '../pages/endpoint-status.js';
import { listTable } from '../pages/list-page.js';
import { csrfPartial } from '../pages/page-helpers.js';
import { defineTemplate } from '../templates.js';

// The templates of the portal's Endpoints pages (`portal-endpoint-pages.ts`). Stored values (a
// URL, a description, a header) are text only, never in an href.

/** @internal The signing secret shown once after **Add endpoint** or **Rotate secret**. */
export interface PortalSecretFlash {
  endpointId: string;
  secret: string;
  rotated: boolean;
}

/** @internal What the endpoint form shows: the values typed, or the endpoint's. */
export interface EndpointFormValues {
  url: string;
  events: readonly string[];
  description: string;
  headers: string;
  rateLimit: string;
}

const secretPartial = `<% if (it.secret) { %>
<section class="notice warning" aria-labelledby="secret-heading">
<h2 id="secret-heading"><%= it.secret.rotated ? 'New signing secret' : 'Signing secret' %> of <%= it.secret.endpointId %></h2>
<p><strong>Copy it now: this is the only time it is shown.</strong> Your receiver verifies every delivery with it.<% if (it.secret.rotated) { %> The previous secret signs too for 24 hours.<% } %></p>
<p class="secret" id="signing-secret"><%= it.secret.secret %></p>
<button type="button" class="secondary" data-copy="signing-secret" data-js-only>Copy secret</button>
</section>
<% } %>`;

// The fields an endpoint's settings share between Add and Edit (data: `it.form`, `it.kinds`). A
// label is a grid (assets.ts): text with markup in it is one span, else each piece is a row.
const settingsFields = `<fieldset>
<legend>Events</legend>
<p class="muted">Leave every box empty to receive every kind.</p>
<% for (const kind of it.kinds) { %>
<label class="check"><input type="checkbox" name="events" value="<%= kind %>"<% if (it.form.events.includes(kind)) { %> checked<% } %>> <%= kind %></label>
<% } %>
</fieldset>
<label for="description">Description
<input id="description" name="description" value="<%= it.form.description %>" autocomplete="off">
</label>
<label for="headers"><span>Static headers, one <code>Name: value</code> a line</span>
<textarea id="headers" name="headers" rows="3" autocomplete="off"><%= it.form.headers %></textarea>
</label>
<label for="rateLimit">Deliveries per second at most (empty: no limit)
<input id="rateLimit" name="rateLimit" inputmode="numeric" value="<%= it.form.rateLimit %>" autocomplete="off">
</label>`;

const errorPartial = `<% if (it.error) { %><p class="notice error" id="form-error" role="alert"><%= it.error %></p><% } %>`;

/** @internal The subscriber's endpoints, a page at a time. */
export const portalEndpointListTemplate = defineTemplate<{
  endpoints: WebhookEndpointInfo[];
  statusOf: (endpoint: WebhookEndpointInfo) => EndpointStatus;
  secret: PortalSecretFlash | undefined;
  next: string | null;
  when: (iso: string | null | undefined) => string;
}>(`
<h1>Endpoints</h1>
<p>The URLs that receive a signed webhook for each event of the kinds they take.</p>
<p><a class="button" href="/portal/endpoints/new">Add endpoint</a></p>
${secretPartial}
${listTable({
  rows: 'endpoints',
  label: 'Endpoints',
  row: 'endpoint',
  columns: ['URL', 'Events', 'State', 'Created'],
  cells: `<td><span class="url"><%= endpoint.url %></span><br><a href="/portal/endpoints/<%= encodeURIComponent(endpoint.id) %>"><code><%= endpoint.id %></code></a></td>
<td><%= endpoint.events.includes('*') ? 'Every kind' : endpoint.events.join(', ') %></td>
<td><% const status = it.statusOf(endpoint); %><span class="badge <%= status.tone %>"><%= status.label %></span></td>
<td><%= it.when(endpoint.createdAt) %></td>`,
  empty: 'No endpoints yet. Add one to receive signed webhooks.',
})}
<% if (it.next) { %><nav aria-label="Pages"><a href="<%= it.next %>">Next page</a></nav><% } %>
`);

/** @internal One endpoint: its facts, its actions, and the form that changes it. */
export const portalEndpointTemplate = defineTemplate<{
  endpoint: WebhookEndpointInfo;
  status: EndpointStatus;
  secret: PortalSecretFlash | undefined;
  csrfToken: string;
  kinds: readonly string[];
  form: EndpointFormValues;
  error: string | undefined;
  when: (iso: string | null | undefined) => string;
}>(`
<p><a href="/portal/endpoints">Endpoints</a></p>
<h1>Endpoint <%= it.endpoint.id %></h1>
${secretPartial}
<dl class="facts">
<dt>URL</dt><dd><span class="url"><%= it.endpoint.url %></span></dd>
<dt>State</dt><dd><span class="badge <%= it.status.tone %>"><%= it.status.label %></span><% if (it.status.summary) { %> <span class="muted"><%= it.status.summary %></span><% } %></dd>
<dt>Events</dt><dd><%= it.endpoint.events.includes('*') ? 'Every kind' : it.endpoint.events.join(', ') %></dd>
<dt>Created</dt><dd><%= it.when(it.endpoint.createdAt) %></dd>
</dl>
<h2>Actions</h2>
<% const id = encodeURIComponent(it.endpoint.id); %>
<div class="actions">
<form method="post" action="/portal/endpoints/<%= id %>/rotate-secret" class="inline">${csrfPartial}<button type="submit" class="secondary">Rotate secret</button></form>
<form method="post" action="/portal/endpoints/<%= id %>/<%= it.endpoint.state === 'active' ? 'disable' : 'enable' %>" class="inline">${csrfPartial}<button type="submit" class="secondary"><%= it.endpoint.state === 'active' ? 'Disable' : 'Enable' %></button></form>
<% if (it.endpoint.state === 'active') { %><form method="post" action="/portal/endpoints/<%= id %>/test" class="inline">${csrfPartial}<button type="submit" class="secondary">Send test event</button></form><% } %>
<form method="get" action="/portal/endpoints/<%= id %>/remove" class="inline"><button type="submit" class="secondary">Remove</button></form>
<a href="/portal/deliveries?endpoint=<%= id %>">Deliveries</a>
<a href="/portal/replay?endpoint=<%= id %>">Replay</a>
</div>
<h2>Edit</h2>
${errorPartial}
<form method="post" action="/portal/endpoints/<%= id %>" class="stacked">
${csrfPartial}
${settingsFields}
<button type="submit">Save</button>
</form>
`);

/** @internal The **Add endpoint** form. */
export const portalNewEndpointTemplate = defineTemplate<{
  csrfToken: string;
  kinds: readonly string[];
  form: EndpointFormValues;
  error: string | undefined;
}>(`
<h1>Add endpoint</h1>
${errorPartial}
<form method="post" action="/portal/endpoints" class="stacked">
${csrfPartial}
<label for="url">URL
<input id="url" name="url" type="url" required value="<%= it.form.url %>"<% if (it.error) { %> aria-describedby="form-error"<% } %> placeholder="https://hooks.example.com/followup" autocomplete="off">
</label>
${settingsFields}
<button type="submit">Add</button>
</form>
<p><a href="/portal/endpoints">Back to endpoints</a></p>
`);

/** @internal The confirmation of **Remove**. */
export const portalRemoveTemplate = defineTemplate<{
  endpoint: WebhookEndpointInfo;
  csrfToken: string;
}>(`
<h1>Remove endpoint <%= it.endpoint.id %>?</h1>
<dl class="facts">
<dt>URL</dt><dd><span class="url"><%= it.endpoint.url %></span></dd>
</dl>
<p class="notice warning">Its deliveries are deleted with it and its pending ones are never sent. This cannot be undone; disabling it instead keeps them.</p>
<form method="post" action="/portal/endpoints/<%= encodeURIComponent(it.endpoint.id) %>/remove">
${csrfPartial}
<button type="submit" class="danger">Remove endpoint</button>
</form>
<p><a href="/portal/endpoints/<%= encodeURIComponent(it.endpoint.id) %>">Cancel</a></p>
`);

import type { ServiceAccountSummary, TokenInfo } from '../../tokens/account-types.js';
import type { Role } from '../../tokens/role.js';
import { defineTemplate } from '../templates.js';
import { listTable, type Paging, pagingPartial } from './list-page.js';
import { csrfPartial } from './page-helpers.js';
import { rowMenu } from './row-menu.js';

// The templates of the Service accounts pages (`service-accounts-pages.ts`), and the choices
// their forms offer.

/**
 * @internal The choices of **Expires in**, and their TTL in seconds (`null`: never). The form
 * starts on {@link DEFAULT_TOKEN_EXPIRY}: a token that never expires is a choice, not a default.
 */
export const tokenExpiryChoices: readonly {
  value: string;
  label: string;
  seconds: number | null;
}[] = [
  { value: 'never', label: 'Never', seconds: null },
  { value: '1h', label: '1 hour', seconds: 3_600 },
  { value: '1d', label: '1 day', seconds: 86_400 },
  { value: '30d', label: '30 days', seconds: 30 * 86_400 },
  { value: '90d', label: '90 days', seconds: 90 * 86_400 },
  { value: 'custom', label: 'Custom number of days', seconds: null },
];

/** @internal The choice **Expires in** starts on: 90 days. */
export const DEFAULT_TOKEN_EXPIRY = '90d';

/** @internal The most days a custom expiry may be: 10 years. */
export const MAX_CUSTOM_EXPIRY_DAYS = 3_650;

/** @internal The list of service accounts, a page at a time. */
export const listTemplate = defineTemplate<{
  accounts: ServiceAccountSummary[];
  paging: Paging;
  when: (iso: string | null | undefined) => string;
}>(`
<h1>Service accounts</h1>
<p>Programs call the API as a service account, with its tokens. The role fixes what they may do.</p>
<form method="get" action="/service-accounts/new"><button type="submit">Create service account</button></form>
${listTable({
  rows: 'accounts',
  label: 'Service accounts',
  narrow: 'cards',
  row: 'account',
  caption: '<caption class="muted">Oldest first</caption>',
  columns: ['Name', 'Role', 'Active tokens', 'Created', 'State'],
  cells: `<td><a href="/service-accounts/<%= encodeURIComponent(account.id) %>"><%= account.name %></a><br><code class="muted"><%= account.id %></code></td>
<td><%= account.role %></td>
<td><%= account.activeTokens %></td>
<td><%= it.when(account.createdAt) %></td>
<td><%= account.disabledAt ? 'disabled' : 'active' %></td>`,
  empty: 'No service accounts yet. Create one, then issue it a token for your program.',
})}
${pagingPartial}
`);

/** @internal The form of **Create service account**. */
export const newTemplate = defineTemplate<{ csrfToken: string; roles: readonly Role[] }>(`
<h1>Create service account</h1>
<form method="post" action="/service-accounts" class="stacked">
${csrfPartial}
<label for="name">Name
<input id="name" name="name" required maxlength="200" autocomplete="off">
</label>
<label for="role">Role
<select id="role" name="role">
<% for (const role of it.roles) { %><option value="<%= role %>"<%= role === 'READONLY' ? ' selected' : '' %>><%= role %></option>
<% } %>
</select>
</label>
<button type="submit">Create</button>
</form>
<p><a href="/service-accounts">Back to service accounts</a></p>
`);

/** @internal An account's page: its tokens, **Issue token** and **Disable account**. */
export const accountTemplate = defineTemplate<{
  account:
    | ServiceAccountSummary
    | { id: string; name: string; role: string; createdAt: string; disabledAt: string | null };
  tokens: TokenInfo[];
  issued: { id: string; token: string; expiresAt: string | null } | undefined;
  csrfToken: string;
  choices: typeof tokenExpiryChoices;
  defaultChoice: string;
  maxDays: number;
  when: (iso: string | null | undefined) => string;
}>(`
<p><a href="/service-accounts">Service accounts</a></p>
<h1><%= it.account.name %></h1>
<p><code><%= it.account.id %></code> · <%= it.account.role %> · created <%= it.when(it.account.createdAt) %><% if (it.account.disabledAt) { %> · <strong>disabled <%= it.when(it.account.disabledAt) %></strong><% } %></p>
<% if (it.issued) { %>
<section class="notice warning" aria-labelledby="new-token-heading">
<h2 id="new-token-heading">New token <%= it.issued.id %></h2>
<p><strong>Copy it now: this is the only time it is shown.</strong> It is not stored, and reloading this page will not show it again.</p>
<p class="secret" id="new-token"><%= it.issued.token %></p>
<button type="button" class="secondary" data-copy="new-token" data-js-only>Copy token</button>
<p><%= it.issued.expiresAt ? 'It expires ' + it.when(it.issued.expiresAt) + '.' : 'It does not expire.' %></p>
</section>
<% } %>
<h2>Tokens</h2>
${listTable({
  rows: 'tokens',
  row: 'token',
  label: 'Tokens',
  narrow: 'cards',
  columns: ['Token', 'Label', 'Created', 'Expires', 'Last used', 'State', 'Actions'],
  cells: `<td><code><%= token.id %></code></td>
<td><%= token.label ?? '' %></td>
<td><%= it.when(token.createdAt) %></td>
<td><%= token.expiresAt ? it.when(token.expiresAt) : 'never' %></td>
<td><%= token.lastUsedAt ? it.when(token.lastUsedAt) : 'never' %></td>
<td><%= token.state %></td>
<td><% if (token.state === 'active') { %><% const tokenPath = '/service-accounts/' + encodeURIComponent(it.account.id) + '/tokens/' + encodeURIComponent(token.id); %><div class="row-actions">
<% if (!it.account.disabledAt) { %><form method="get" action="<%= tokenPath %>/roll" class="inline"><button type="submit" class="secondary" aria-label="Roll <%= token.id %>">Roll</button></form><% } %>
${rowMenu({
  label: 'token.id',
  items: `<form method="get" action="<%= tokenPath %>/revoke" class="inline"><button type="submit" class="danger-outline" aria-label="Revoke <%= token.id %>">Revoke</button></form>`,
})}
</div><% } %></td>`,
  empty:
    'This account has no tokens yet. Issue one below and give it to the program that calls the API.',
})}
<% if (!it.account.disabledAt) { %>
<h2>Issue token</h2>
<form method="post" action="/service-accounts/<%= encodeURIComponent(it.account.id) %>/tokens" class="stacked">
${csrfPartial}
<label for="label">Label
<input id="label" name="label" maxlength="100" autocomplete="off" aria-describedby="label-help">
</label>
<span id="label-help" class="muted">Optional: what the token is for, such as "ci deploy".</span>
<div class="expiry">
<label for="expires">Expires in
<select id="expires" name="expires">
<% for (const choice of it.choices) { %><option value="<%= choice.value %>"<%= choice.value === it.defaultChoice ? ' selected' : '' %>><%= choice.label %></option>
<% } %>
</select>
</label>
<div class="custom-days">
<label for="days">Custom number of days
<input id="days" name="days" type="number" min="1" max="<%= it.maxDays %>" inputmode="numeric" aria-describedby="days-help">
</label>
<span id="days-help" class="muted">Used when Expires in is "Custom number of days".</span>
</div>
</div>
<button type="submit">Issue</button>
</form>
<h2>Disable account</h2>
<p>Disabling the account revokes every token it holds at once; it cannot get new ones.</p>
<form method="get" action="/service-accounts/<%= encodeURIComponent(it.account.id) %>/disable">
<button type="submit" class="danger-outline">Disable account</button>
</form>
<% } %>
`);

/** @internal The confirmation of **Revoke token**. */
export const revokeTemplate = defineTemplate<{
  accountId: string;
  token: TokenInfo;
  csrfToken: string;
  when: (iso: string | null | undefined) => string;
}>(`
<h1>Revoke token <%= it.token.id %>?</h1>
<p>Label: <%= it.token.label ?? 'none' %> · created <%= it.when(it.token.createdAt) %> · last used <%= it.token.lastUsedAt ? it.when(it.token.lastUsedAt) : 'never' %></p>
<p class="notice warning">Every call with this token will fail with 401 <code>token_revoked</code> from now on. This cannot be undone.</p>
<form method="post" action="/service-accounts/<%= encodeURIComponent(it.accountId) %>/tokens/<%= encodeURIComponent(it.token.id) %>/revoke">
${csrfPartial}
<button type="submit" class="danger">Revoke token</button>
</form>
<p><a href="/service-accounts/<%= encodeURIComponent(it.accountId) %>">Cancel</a></p>
`);

/** @internal The form of **Roll token**, with its grace period. */
export const rollTemplate = defineTemplate<{
  accountId: string;
  token: TokenInfo;
  csrfToken: string;
  when: (iso: string | null | undefined) => string;
}>(`
<h1>Roll token <%= it.token.id %></h1>
<p>Issues a replacement (same label<%= it.token.expiresAt ? ', same lifetime' : '' %>), shown once, and makes this token expire after the grace period, so that its users can switch without downtime.</p>
<form method="post" action="/service-accounts/<%= encodeURIComponent(it.accountId) %>/tokens/<%= encodeURIComponent(it.token.id) %>/roll" class="stacked">
${csrfPartial}
<label for="grace">Grace period
<input id="grace" name="grace" value="24h" required maxlength="12" aria-describedby="grace-help">
</label>
<span id="grace-help" class="muted">How long the old token keeps working: 90s, 30m, 24h or 7d (at most 30d).</span>
<button type="submit">Roll token</button>
</form>
<p><a href="/service-accounts/<%= encodeURIComponent(it.accountId) %>">Cancel</a></p>
`);

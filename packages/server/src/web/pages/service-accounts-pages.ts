import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseDuration } from '../../duration.js';
import { ProblemError } from '../../plugins/problem.js';
import type { ServiceAccountSummary, TokenInfo } from '../../tokens/account-types.js';
import { type Role, roles } from '../../tokens/role.js';
import { MAX_ROLL_GRACE_SECONDS } from '../../tokens/token-limits.js';
import { pageContext, sendPage } from '../page-context.js';
import { defineTemplate } from '../templates.js';
import type { WebPage } from './index.js';
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
  withPageErrors,
} from './page-helpers.js';

/** @internal The choices of **Expires in**, and their TTL in seconds (`null`: never). */
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

/** @internal The most days a custom expiry may be: 10 years. */
export const MAX_CUSTOM_EXPIRY_DAYS = 3_650;

const listTemplate = defineTemplate<{
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

const newTemplate = defineTemplate<{ csrfToken: string; roles: readonly Role[] }>(`
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

const accountTemplate = defineTemplate<{
  account:
    | ServiceAccountSummary
    | { id: string; name: string; role: string; createdAt: string; disabledAt: string | null };
  tokens: TokenInfo[];
  issued: { id: string; token: string; expiresAt: string | null } | undefined;
  csrfToken: string;
  choices: typeof tokenExpiryChoices;
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
  columns: ['Token', 'Label', 'Created', 'Expires', 'Last used', 'State', 'Actions'],
  cells: `<td><code><%= token.id %></code></td>
<td><%= token.label ?? '' %></td>
<td><%= it.when(token.createdAt) %></td>
<td><%= token.expiresAt ? it.when(token.expiresAt) : 'never' %></td>
<td><%= token.lastUsedAt ? it.when(token.lastUsedAt) : 'never' %></td>
<td><%= token.state %></td>
<td><% if (token.state === 'active') { %><form method="get" action="/service-accounts/<%= encodeURIComponent(it.account.id) %>/tokens/<%= encodeURIComponent(token.id) %>/revoke" class="inline"><button type="submit" class="secondary" aria-label="Revoke <%= token.id %>">Revoke</button></form><% if (!it.account.disabledAt) { %><form method="get" action="/service-accounts/<%= encodeURIComponent(it.account.id) %>/tokens/<%= encodeURIComponent(token.id) %>/roll" class="inline"><button type="submit" class="secondary" aria-label="Roll <%= token.id %>">Roll</button></form><% } %><% } %></td>`,
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
<label for="expires">Expires in
<select id="expires" name="expires">
<% for (const choice of it.choices) { %><option value="<%= choice.value %>"><%= choice.label %></option>
<% } %>
</select>
</label>
<label for="days">Custom number of days
<input id="days" name="days" type="number" min="1" max="<%= it.maxDays %>" inputmode="numeric" aria-describedby="days-help">
</label>
<span id="days-help" class="muted">Used when Expires in is "Custom number of days".</span>
<button type="submit">Issue</button>
</form>
<h2>Disable account</h2>
<p>Disabling the account revokes every token it holds at once; it cannot get new ones.</p>
<form method="post" action="/service-accounts/<%= encodeURIComponent(it.account.id) %>/disable">
${csrfPartial}
<button type="submit" class="danger">Disable account</button>
</form>
<% } %>
`);

const revokeTemplate = defineTemplate<{
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

const rollTemplate = defineTemplate<{
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

/** An account's page. */
function accountPath(id: string): string {
  return `/service-accounts/${encodeURIComponent(id)}`;
}

function expiryOf(body: unknown): number | undefined {
  const choice = tokenExpiryChoices.find((item) => item.value === textField(body, 'expires', 10));
  if (!choice) throw invalidInput('Expires in: choose one of the listed choices.');
  if (choice.value !== 'custom') return choice.seconds ?? undefined;
  const days = textField(body, 'days', 10);
  if (!/^[1-9]\d{0,3}$/.test(days) || Number(days) > MAX_CUSTOM_EXPIRY_DAYS) {
    throw invalidInput(
      `Custom number of days: a whole number from 1 to ${MAX_CUSTOM_EXPIRY_DAYS}.`,
    );
  }
  return Number(days) * 86_400;
}

function invalidInput(message: string) {
  return new ProblemError({ code: 'validation_failed', detail: message });
}

/**
 * @internal The Service accounts pages (users.manage): the list, **Create service account**, an
 * account's tokens, **Issue token** (shown once, after a redirect), **Revoke** confirmed by
 * **Revoke token**, and **Disable account**. Every change goes through the account store, as the
 * operator commands do, with the signed-in user as the audit actor.
 */
export const serviceAccountsPages: WebPage =
  ({ database, clock, newId, accounts }) =>
  async (app: FastifyInstance) => {
    const guard = pageRoute('users.manage');

    /** Keeps a new token for its account's page to show once, and sends the browser there. */
    const showTokenOnce = async (
      request: FastifyRequest,
      reply: FastifyReply,
      accountId: string,
      issued: { id: string; token: string; expiresAt: string | null },
    ) => {
      await rememberFlash(
        request,
        reply,
        { database, clock, newId },
        {
          kind: 'token',
          accountId,
          id: issued.id,
          token: issued.token,
          expiresAt: issued.expiresAt,
        },
      );
      return reply.redirect(accountPath(accountId), 303);
    };

    app.get('/service-accounts', guard, async (request, reply) => {
      const page = listPage(request.query, '/service-accounts');
      const list = await accounts.listAccounts({ limit: page.limit, offset: page.offset });
      return sendPage(request, reply, {
        title: 'Service accounts',
        body: listTemplate.render({
          accounts: list,
          paging: page.paging(list.length),
          when,
        }),
      });
    });

    app.get('/service-accounts/new', guard, async (request, reply) =>
      sendPage(request, reply, {
        title: 'Create service account',
        body: newTemplate.render({ csrfToken: pageContext(request).csrfToken, roles }),
      }),
    );

    app.post('/service-accounts', guard, async (request, reply) =>
      withPageErrors(request, reply, '/service-accounts/new', async () => {
        const name = textField(request.body, 'name', 201);
        if (name === '' || name.length > 200) throw invalidInput('Name: 1 to 200 characters.');
        const role = textField(request.body, 'role', 10) as Role;
        if (!roles.includes(role)) throw invalidInput(`Role: one of ${roles.join(', ')}.`);
        const account = await accounts.createAccount({ name, role, actor: actorOf(request) });
        return reply.redirect(accountPath(account.id), 303);
      }),
    );

    app.get<{ Params: { id: string } }>('/service-accounts/:id', guard, async (request, reply) => {
      const account = await accounts.getAccount(request.params.id);
      if (!account) return sendNotFoundPage(request, reply, '/service-accounts');
      const flash = await recallFlash(request, reply, { database, clock });
      const issued =
        flash?.kind === 'token' && flash.accountId === account.id
          ? (flash as unknown as { id: string; token: string; expiresAt: string | null })
          : undefined;
      return sendPage(request, reply, {
        title: account.name,
        body: accountTemplate.render({
          account,
          tokens: await accounts.listTokens(account.id),
          issued,
          csrfToken: pageContext(request).csrfToken,
          choices: tokenExpiryChoices,
          maxDays: MAX_CUSTOM_EXPIRY_DAYS,
          when,
        }),
      });
    });

    app.post<{ Params: { id: string } }>(
      '/service-accounts/:id/tokens',
      guard,
      async (request, reply) => {
        const back = accountPath(request.params.id);
        return withPageErrors(request, reply, back, async () => {
          const ttlSeconds = expiryOf(request.body);
          const label = textField(request.body, 'label', 101);
          const issued = await accounts.issueToken({
            accountId: request.params.id,
            actor: actorOf(request),
            ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
            ...(label === '' ? {} : { label }),
          });
          return showTokenOnce(request, reply, request.params.id, issued);
        });
      },
    );

    // The token of the URL, when it belongs to the URL's account (otherwise the pages answer 404).
    const tokenOfAccount = async (params: { id: string; tokenId: string }) => {
      const token = await accounts.getToken(params.tokenId);
      return token?.accountId === params.id ? token : undefined;
    };

    // The confirmation pages of Revoke and Roll: the token, and the form that does it.
    for (const [action, title, template] of [
      ['revoke', 'Revoke token', revokeTemplate],
      ['roll', 'Roll token', rollTemplate],
    ] as const) {
      app.get<{ Params: { id: string; tokenId: string } }>(
        `/service-accounts/:id/tokens/:tokenId/${action}`,
        guard,
        async (request, reply) => {
          const back = accountPath(request.params.id);
          const token = await tokenOfAccount(request.params);
          if (!token) return sendNotFoundPage(request, reply, back);
          return sendPage(request, reply, {
            title,
            body: template.render({
              accountId: request.params.id,
              token,
              csrfToken: pageContext(request).csrfToken,
              when,
            }),
          });
        },
      );
    }

    app.post<{ Params: { id: string; tokenId: string } }>(
      '/service-accounts/:id/tokens/:tokenId/revoke',
      guard,
      async (request, reply) => {
        const back = accountPath(request.params.id);
        return withPageErrors(request, reply, back, async () => {
          const token = await tokenOfAccount(request.params);
          if (!token) return sendNotFoundPage(request, reply, back);
          await accounts.revokeToken({ tokenId: token.id, actor: actorOf(request) });
          return reply.redirect(back, 303);
        });
      },
    );

    app.post<{ Params: { id: string; tokenId: string } }>(
      '/service-accounts/:id/tokens/:tokenId/roll',
      guard,
      async (request, reply) => {
        const back = accountPath(request.params.id);
        return withPageErrors(request, reply, back, async () => {
          const token = await tokenOfAccount(request.params);
          if (!token) return sendNotFoundPage(request, reply, back);
          const graceSeconds = parseDuration(textField(request.body, 'grace', 12), {
            max: MAX_ROLL_GRACE_SECONDS,
          });
          if (graceSeconds === undefined) {
            throw invalidInput(
              'Grace period: digits and one unit, such as 90s, 30m, 24h or 7d; at most 30d.',
            );
          }
          const { issued } = await accounts.rollToken({
            tokenId: token.id,
            graceSeconds,
            actor: actorOf(request),
          });
          return showTokenOnce(request, reply, request.params.id, issued);
        });
      },
    );

    app.post<{ Params: { id: string } }>(
      '/service-accounts/:id/disable',
      guard,
      async (request, reply) => {
        const back = accountPath(request.params.id);
        return withPageErrors(request, reply, back, async () => {
          await accounts.disableAccount({ accountId: request.params.id, actor: actorOf(request) });
          return reply.redirect(back, 303);
        });
      },
    );
  };

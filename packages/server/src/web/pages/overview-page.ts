import {
  type EndpointHealth,
  readEndpointHealth,
} from '../../stores/endpoint-attempt-stats-store.js';
import { readOutboxBacklog } from '../../stores/outbox-store.js';
import {
  type BadSignatureReceipt,
  countAttemptsByHour,
  countReceiptsByHour,
  type ExpiringToken,
  type InvitedUser,
  listRecentBadSignatures,
  listTokensExpiringSoon,
  listUsersNotSignedIn,
} from '../../stores/overview-store.js';
import { pageContext, requireSignedIn, sendPage } from '../page-context.js';
import { defineTemplate } from '../templates.js';
import { type EndpointStatus, endpointStatus } from './endpoint-status.js';
import { renderHourlyChart } from './hourly-chart.js';
import { scrollingTable } from './list-page.js';
import { ageText, successRate } from './overview-figures.js';
import { when } from './page-helpers.js';
import type { WebPage } from './web-page.js';

/** @internal How many endpoints the overview lists; the rest are on the endpoints page. */
export const OVERVIEW_ENDPOINTS = 10;

/** @internal How many items each list of **Needs attention** shows. */
export const ATTENTION_ITEMS = 5;

/** @internal A token expiring within this many days is listed under **Needs attention**. */
export const EXPIRING_TOKEN_DAYS = 7;

const DAY_MS = 86_400_000;

interface EndpointView {
  endpoint: EndpointHealth;
  status: EndpointStatus;
  /** Since when it fails or is disabled, as people read it; `''` when active. */
  since: string;
  rate: string;
  p95: string;
}

interface OverviewView {
  name: string;
  asOf: string;
  health:
    | {
        endpoints: EndpointView[];
        total: number;
        outbox: { pending: number; oldest: string; age: string };
        chart: string;
      }
    | undefined;
  receipts: { chart: string } | undefined;
  attention: {
    failing: EndpointView[] | undefined;
    tokens: (ExpiringToken & { expires: string; left: string })[] | undefined;
    badSignatures: (BadSignatureReceipt & { received: string })[] | undefined;
    invited: (InvitedUser & { invited: string })[] | undefined;
    /** Whether the role may read any of the lists. */
    shown: boolean;
    empty: boolean;
  };
  links: readonly { label: string; href: string }[];
}

const endpointsTable = scrollingTable(
  'Delivery health by endpoint',
  `<table>
<thead><tr><th scope="col">Endpoint</th><th scope="col">State</th><th scope="col">Attempts</th><th scope="col">Success rate</th><th scope="col">95th percentile</th></tr></thead>
<tbody>
<% for (const item of it.health.endpoints) { %><tr>
<td><a class="overview-url" href="/webhook-endpoints/<%= encodeURIComponent(item.endpoint.id) %>" title="<%= item.endpoint.url %>"><%= item.endpoint.url %></a></td>
<td><span class="badge <%= item.status.tone %>"><%= item.status.label %></span><% if (item.since) { %> <span class="muted">since <span class="nowrap"><%= item.since %></span></span><% } %></td>
<td><%= item.endpoint.attempts %></td>
<td><%= item.rate %></td>
<td><%= item.p95 %></td>
</tr>
<% } %>
</tbody>
</table>`,
);

const overviewTemplate = defineTemplate<OverviewView>(`
<h1>Overview</h1>
<p class="muted">Hello, <%= it.name %>. As of <span class="nowrap"><%= it.asOf %></span>.</p>

<% if (it.health) { %>
<section aria-labelledby="delivery-health">
<h2 id="delivery-health">Delivery health</h2>
<p>Outbox: <strong><%= it.health.outbox.pending %></strong> event<%= it.health.outbox.pending === 1 ? '' : 's' %> waiting to be fanned out to deliveries<% if (it.health.outbox.pending > 0) { %>, the oldest written <%= it.health.outbox.age %> ago (<span class="nowrap"><%= it.health.outbox.oldest %></span>)<% } %>.</p>
<% if (it.health.total === 0) { %>
<p>No webhook endpoint yet. <a href="/webhook-endpoints/new">Add an endpoint</a> to have events delivered.</p>
<% } else { %>
<p class="muted">Over the last 24 hours: the share of delivery attempts answered with a 2xx status, and the 95th percentile of the attempts' durations (from sending the request to the end of the answer, or to the time-out). Failing and disabled endpoints first.</p>
${endpointsTable}
<% if (it.health.total > it.health.endpoints.length) { %><p><a href="/webhook-endpoints">All <%= it.health.total %> endpoints</a></p><% } %>
<% } %>
<%~ it.health.chart %>
</section>
<% } %>

<% if (it.receipts) { %>
<section aria-labelledby="receipts-health">
<h2 id="receipts-health">EHR receipts</h2>
<%~ it.receipts.chart %>
</section>
<% } %>

<% if (it.attention.shown) { %>
<section aria-labelledby="needs-attention">
<h2 id="needs-attention">Needs attention</h2>
<% if (it.attention.empty) { %><p>Nothing needs you right now.</p><% } %>
<% if (it.attention.failing && it.attention.failing.length > 0) { %>
<h3>Endpoints failing</h3>
<ul class="attention">
<% for (const item of it.attention.failing) { %><li><a class="overview-url" href="/webhook-endpoints/<%= encodeURIComponent(item.endpoint.id) %>" title="<%= item.endpoint.url %>"><%= item.endpoint.url %></a> <span class="badge <%= item.status.tone %>"><%= item.status.label %></span> since <span class="nowrap"><%= item.since %></span><% if (item.endpoint.disabledReason === 'gone') { %> (answered 410 Gone)<% } %></li>
<% } %>
</ul>
<% } %>
<% if (it.attention.tokens && it.attention.tokens.length > 0) { %>
<h3>Tokens expiring within ${EXPIRING_TOKEN_DAYS} days</h3>
<ul class="attention">
<% for (const token of it.attention.tokens) { %><li><a href="/service-accounts/<%= encodeURIComponent(token.accountId) %>"><%= token.accountName %></a>: <%= token.label || token.id %> expires <span class="nowrap"><%= token.expires %></span>, in <span class="nowrap"><%= token.left %></span></li>
<% } %>
</ul>
<% } %>
<% if (it.attention.badSignatures && it.attention.badSignatures.length > 0) { %>
<h3>Bad signatures on EHR webhooks</h3>
<ul class="attention">
<% for (const receipt of it.attention.badSignatures) { %><li><a href="/ehr-receipts/<%= encodeURIComponent(receipt.id) %>"><%= receipt.vendor %>, <span class="nowrap"><%= receipt.received %></span></a></li>
<% } %>
</ul>
<p><a href="/ehr-receipts?outcome=invalid_signature">Every receipt with a bad signature</a></p>
<% } %>
<% if (it.attention.invited && it.attention.invited.length > 0) { %>
<h3>Invited, not signed in yet</h3>
<ul class="attention">
<% for (const user of it.attention.invited) { %><li><a href="/users"><%= user.name || user.email %></a> <span class="muted">(<%= user.email %>), invited <span class="nowrap"><%= user.invited %></span></span></li>
<% } %>
</ul>
<% } %>
</section>
<% } %>

<% if (it.links.length === 0) { %>
<p>Your role has no settings pages. You can use the API with this browser session, or ask an
administrator for a role with more capabilities.</p>
<% } %>
`);

function endpointView(endpoint: EndpointHealth): EndpointView {
  const status = endpointStatus(endpoint);
  const since =
    status.label === 'Active'
      ? ''
      : endpoint.failingSince
        ? when(endpoint.failingSince)
        : when(endpoint.updatedAt);
  return {
    endpoint,
    status,
    since,
    rate: successRate(endpoint.succeeded, endpoint.attempts),
    p95: endpoint.p95DurationMs === null ? '—' : `${endpoint.p95DurationMs} ms`,
  };
}

/**
 * @internal The start page (`/`, anyone signed in): delivery health and the deliveries chart
 * (`webhooks.manage`), the EHR receipts chart (`audit.read`) and what needs attention, each list
 * under the capability its page needs: what a role may not read is not shown to it.
 */
export const overviewPage: WebPage =
  ({ database, clock }) =>
  async (app) => {
    app.get('/', { onRequest: requireSignedIn, schema: { hide: true } }, async (request, reply) => {
      const context = pageContext(request);
      const can = (capability: Parameters<typeof context.capabilities.has>[0]) =>
        context.capabilities.has(capability);
      const now = clock.now();
      const [health, backlog, attempts, receipts, tokens, badSignatures, invited] =
        await Promise.all([
          can('webhooks.manage')
            ? readEndpointHealth(database, { now, limit: OVERVIEW_ENDPOINTS })
            : undefined,
          can('webhooks.manage') ? readOutboxBacklog(database) : undefined,
          can('webhooks.manage') ? countAttemptsByHour(database, { now }) : undefined,
          can('audit.read') ? countReceiptsByHour(database, { now }) : undefined,
          can('users.manage')
            ? listTokensExpiringSoon(database, {
                now,
                withinMs: EXPIRING_TOKEN_DAYS * DAY_MS,
                limit: ATTENTION_ITEMS,
              })
            : undefined,
          can('audit.read')
            ? listRecentBadSignatures(database, { now, limit: ATTENTION_ITEMS })
            : undefined,
          can('users.manage')
            ? listUsersNotSignedIn(database, { limit: ATTENTION_ITEMS })
            : undefined,
        ]);
      const endpoints = health?.endpoints.map(endpointView);
      const failing = endpoints?.filter(
        (item) => item.status.label !== 'Active' && item.status.label !== 'Disabled',
      );
      const attention = {
        failing,
        tokens: tokens?.map((token) => ({
          ...token,
          expires: when(token.expiresAt),
          left: ageText(Date.parse(token.expiresAt) - now),
        })),
        badSignatures: badSignatures?.map((receipt) => ({
          ...receipt,
          received: when(receipt.receivedAt),
        })),
        invited: invited?.map((user) => ({ ...user, invited: when(user.invitedAt) })),
      };
      const lists = [
        attention.failing,
        attention.tokens,
        attention.badSignatures,
        attention.invited,
      ];
      const shown = lists.some((list) => list !== undefined);
      const empty = [
        attention.failing,
        attention.tokens,
        attention.badSignatures,
        attention.invited,
      ].every((list) => !list || list.length === 0);
      return sendPage(request, reply, {
        title: 'Overview',
        body: overviewTemplate.render({
          name: context.user.name || context.user.email,
          asOf: when(new Date(now).toISOString()),
          health:
            health && backlog && attempts && endpoints
              ? {
                  endpoints,
                  total: health.total,
                  outbox: {
                    pending: backlog.pending,
                    oldest: when(backlog.oldestCreatedAt),
                    age: backlog.oldestCreatedAt
                      ? ageText(now - Date.parse(backlog.oldestCreatedAt))
                      : '',
                  },
                  chart: renderHourlyChart({
                    id: 'attempts-chart',
                    title: 'Delivery attempts per hour',
                    series: [
                      { key: 'delivered', label: 'Delivered', tone: 'green', pattern: 'solid' },
                      {
                        key: 'failed',
                        label: 'Failed, to be retried',
                        tone: 'amber',
                        pattern: 'stripes',
                      },
                      { key: 'dead', label: 'Dead, given up', tone: 'red', pattern: 'dots' },
                    ],
                    hours: attempts,
                  }),
                }
              : undefined,
          receipts: receipts
            ? {
                chart: renderHourlyChart({
                  id: 'receipts-chart',
                  title: 'EHR receipts per hour',
                  series: [
                    { key: 'accepted', label: 'Accepted', tone: 'green', pattern: 'solid' },
                    { key: 'badSignature', label: 'Bad signature', tone: 'red', pattern: 'dots' },
                    { key: 'replay', label: 'Replay', tone: 'blue', pattern: 'stripes' },
                  ],
                  hours: receipts,
                }),
              }
            : undefined,
          attention: { ...attention, empty, shown },
          links: context.navigation,
        }),
      });
    });
  };

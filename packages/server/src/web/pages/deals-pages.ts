import { DEAL_STAGE_VALUES } from '@followup/sdk';
import type { FastifyInstance } from 'fastify';
import { dealListFilters, dealStorage, readDeal } from '../../stores/deal-store.js';
import type { KeysetListSource } from '../../stores/resource-list-store.js';
import { itemColumns, itemFromRow } from '../../stores/resource-rows.js';
import { sendPage } from '../page-context.js';
import { defineTemplate } from '../templates.js';
import { listTable } from './list-page.js';
import { pageRoute, sendNotFoundPage, when, withPageErrors } from './page-helpers.js';
import { choiceField, readRecordListPage, recordIdParam, searchField } from './record-list.js';
import type { WebPage } from './web-page.js';

/** @internal What every data page says: the console reads, the API writes. */
export const readOnlyNotice = '<p class="muted">Read-only: changes are made through the API.</p>';

/**
 * @internal A deal's amount as people read it: `$1,250.00`; an unknown currency code as
 * `1250.00 XYZ`.
 */
export function dealAmount(deal: Record<string, unknown>): string {
  const cents = Number(deal.amountCents ?? 0);
  const currency = String(deal.currency ?? '');
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(2)} ${currency}`.trim();
  }
}

/** @internal A count with its noun: `1 deal`, `150 deals`. */
export function countOf(count: number, noun: string): string {
  return `${count.toLocaleString('en-US')} ${noun}${count === 1 ? '' : 's'}`;
}

const dealSource: KeysetListSource = {
  table: 'deals',
  columns: itemColumns(dealStorage),
  filters: dealListFilters,
  toItem: (row) => itemFromRow(dealStorage, row),
};

/** @internal The deal cells of a table row (bound to `deal`), shared with a contact's page. */
export const dealCells = `<td class="words"><a href="/deals/<%= encodeURIComponent(deal.id) %>"><%= deal.title %></a></td>
<td><span class="no-break"><%= deal.stage %></span></td>
<td><span class="no-break"><%= it.amount(deal) %></span></td>`;

const listTemplate = defineTemplate<{
  deals: Record<string, unknown>[];
  stages: readonly string[];
  q: string;
  stage: string;
  total: string;
  previous: string | null;
  next: string | null;
  amount: (deal: Record<string, unknown>) => string;
  when: (iso: string | null | undefined) => string;
}>(`
<h1>Deals</h1>
${readOnlyNotice}
<form method="get" action="/deals" class="filters" role="search">
<label for="q">Search
<input id="q" name="q" type="search" value="<%= it.q %>" maxlength="100" placeholder="Start of a title">
</label>
<label for="stage">Stage
<select id="stage" name="stage">
<option value="">Any</option>
<% for (const stage of it.stages) { %><option value="<%= stage %>"<%= stage === it.stage ? ' selected' : '' %>><%= stage %></option>
<% } %>
</select>
</label>
<button type="submit">Search</button>
</form>
<p><strong><%= it.total %></strong><%= it.q ? ' match' : it.stage ? ' in this stage' : '' %>, newest first.</p>
${listTable({
  rows: 'deals',
  row: 'deal',
  label: 'Deals',
  columns: ['Title', 'Stage', 'Amount', 'Contact', 'Created'],
  cells: `${dealCells}
<td><a href="/contacts/<%= encodeURIComponent(deal.contactId) %>">View contact</a></td>
<td><span class="no-break"><%= it.when(deal.createdAt) %></span></td>`,
  empty:
    "<%= it.q ? 'No deal matches. Search matches the start of a title; clear the search or choose Any to see every deal.' : it.stage ? 'No deal is in this stage. Choose Any to see every deal.' : 'No deals yet. Deals are created through the API (POST /api/deals).' %>",
})}
<% if (it.previous || it.next) { %>
<nav class="paging" aria-label="Pages">
<% if (it.previous) { %><a href="<%= it.previous %>">Previous page</a><% } %>
<% if (it.next) { %><a href="<%= it.next %>">Next page</a><% } %>
</nav>
<% } %>
`);

const dealTemplate = defineTemplate<{
  deal: Record<string, unknown>;
  amount: string;
  when: (iso: string | null | undefined) => string;
}>(`
<h1><%= it.deal.title %></h1>
${readOnlyNotice}
<dl class="facts">
<dt>Id</dt><dd><code class="no-break"><%= it.deal.id %></code></dd>
<dt>Title</dt><dd><%= it.deal.title %></dd>
<dt>Stage</dt><dd><%= it.deal.stage %></dd>
<dt>Amount</dt><dd><%= it.amount %></dd>
<dt>Contact</dt><dd><a href="/contacts/<%= encodeURIComponent(it.deal.contactId) %>"><code class="no-break"><%= it.deal.contactId %></code></a></dd>
<dt>Created</dt><dd><%= it.when(it.deal.createdAt) %></dd>
<dt>Updated</dt><dd><%= it.when(it.deal.updatedAt) %></dd>
</dl>
<p><a href="/deals">All deals</a></p>
`);

/**
 * @internal The Deals pages (deals.read), read-only: `/deals` (newest first, the search `q`
 * (the start of a title) and the `stage` filter of the API, keyset pages, the count) and
 * `/deals/{id}`.
 */
export const dealsPages: WebPage =
  ({ database }) =>
  async (app: FastifyInstance) => {
    app.get('/deals', pageRoute('deals.read'), async (request, reply) =>
      withPageErrors(request, reply, '/deals', async () => {
        const q = searchField(request.query);
        const stage = choiceField(request.query, 'stage', DEAL_STAGE_VALUES);
        const page = await readRecordListPage(database, {
          source: dealSource,
          path: '/deals',
          query: request.query,
          filters: { q, stage },
          request: { ...(q ? { q } : {}), ...(stage ? { oneOf: [stage] } : {}) },
        });
        return sendPage(request, reply, {
          title: 'Deals',
          body: listTemplate.render({
            deals: page.items,
            stages: DEAL_STAGE_VALUES,
            q,
            stage,
            total: countOf(page.total, 'deal'),
            previous: page.previous,
            next: page.next,
            amount: dealAmount,
            when,
          }),
        });
      }),
    );

    app.get('/deals/:id', pageRoute('deals.read'), async (request, reply) => {
      const id = recordIdParam(request.params);
      const deal = id === undefined ? undefined : await readDeal(database, id);
      if (!deal) return sendNotFoundPage(request, reply, '/deals');
      return sendPage(request, reply, {
        title: String(deal.title),
        body: dealTemplate.render({ deal, amount: dealAmount(deal), when }),
      });
    });
  };

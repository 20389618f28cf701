import { DEAL_STAGE_VALUES } from '@followup/sdk';
import type { FastifyInstance } from 'fastify';
import { dealListFilters, dealStorage, readDeal } from '../../stores/deal-store.js';
import type { KeysetListSource } from '../../stores/resource-list-store.js';
import { itemColumns, itemFromRow } from '../../stores/resource-rows.js';
import { sendPage } from '../page-context.js';
import { defineTemplate } from '../templates.js';
import { pageRoute, sendNotFoundPage, when } from './page-helpers.js';
import { recordIdParam } from './record-list.js';
import { defineRecordListView, readOnlyNotice } from './record-list-view.js';
import type { WebPage } from './web-page.js';

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

const dealList = defineRecordListView({
  title: 'Deals',
  path: '/deals',
  source: dealSource,
  noun: 'deal',
  searchPlaceholder: 'Start of a title',
  choice: { name: 'stage', label: 'Stage', values: DEAL_STAGE_VALUES },
  choiceMatch: ' in this stage',
  table: {
    row: 'deal',
    columns: ['Title', 'Stage', 'Amount', 'Contact', 'Created'],
    cells: `${dealCells}
<td><a href="/contacts/<%= encodeURIComponent(deal.contactId) %>">View contact</a></td>
<td><span class="no-break"><%= it.when(deal.createdAt) %></span></td>`,
  },
  empty: {
    search:
      'No deal matches. Search matches the start of a title; clear the search or choose Any to see every deal.',
    choice: 'No deal is in this stage. Choose Any to see every deal.',
    none: 'No deals yet. Deals are created through the API (POST /api/deals).',
  },
  formatters: { amount: dealAmount },
});

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
    app.get('/deals', pageRoute('deals.read'), (request, reply) =>
      dealList.send(request, reply, database),
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

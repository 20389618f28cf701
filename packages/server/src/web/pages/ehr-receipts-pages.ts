import type { FastifyInstance } from 'fastify';
import { receiptVerdicts } from '../../receipts/receipt-verdicts.js';
import {
  getReceipt,
  listReceipts,
  RECEIPT_BODY_PREVIEW_BYTES,
  type ReceiptSummary,
} from '../../stores/receipt-store.js';
import { sendPage } from '../page-context.js';
import { defineTemplate } from '../templates.js';
import { listPage, listTable, type Paging, pagingPartial, scrollingTable } from './list-page.js';
import { pageRoute, sendNotFoundPage, textField, when, withPageErrors } from './page-helpers.js';
import type { WebPage } from './web-page.js';

const listTemplate = defineTemplate<{
  receipts: ReceiptSummary[];
  filters: { vendor: string; outcome: string; since: string; until: string };
  outcomes: readonly string[];
  paging: Paging;
  when: (iso: string | null | undefined) => string;
}>(`
<h1>EHR receipts</h1>
<p>Every request to <code>/api/ehr/webhooks/{vendor}</code>, bad signatures included, newest first.</p>
<form method="get" action="/ehr-receipts" class="filters">
<label for="vendor">Vendor
<input id="vendor" name="vendor" value="<%= it.filters.vendor %>" maxlength="100" placeholder="athenahealth">
</label>
<label for="outcome">Outcome
<select id="outcome" name="outcome">
<option value="">Any</option>
<% for (const outcome of it.outcomes) { %><option value="<%= outcome %>"<%= outcome === it.filters.outcome ? ' selected' : '' %>><%= outcome %></option>
<% } %>
</select>
</label>
<label for="since">Received from (UTC)
<input id="since" name="since" value="<%= it.filters.since %>" maxlength="40" placeholder="2026-03-01T00:00:00Z">
</label>
<label for="until">Received before (UTC)
<input id="until" name="until" value="<%= it.filters.until %>" maxlength="40" placeholder="2026-03-02">
</label>
<button type="submit">Filter</button>
</form>
${listTable({
  rows: 'receipts',
  label: 'EHR receipts',
  row: 'receipt',
  columns: ['Received', 'Vendor', 'Outcome', 'Size', 'Receipt'],
  cells: `<td><%= it.when(receipt.receivedAt) %></td>
<td><%= receipt.vendor %></td>
<td><%= receipt.verdict %></td>
<td><%= receipt.bodyBytes %> bytes</td>
<td><a href="/ehr-receipts/<%= encodeURIComponent(receipt.id) %>"><%= receipt.id %></a></td>`,
  empty:
    'No receipt matches. Receipts appear here as EHR vendors post webhooks; point a vendor at <code>/api/ehr/webhooks/&lt;vendor&gt;</code> with its secret configured.',
})}
${pagingPartial}
`);

const receiptTemplate = defineTemplate<{
  receipt: NonNullable<Awaited<ReturnType<typeof getReceipt>>>;
  status: number;
  previewBytes: number;
  when: (iso: string | null | undefined) => string;
}>(`
<p><a href="/ehr-receipts">EHR receipts</a></p>
<h1>Receipt <%= it.receipt.id %></h1>
<dl class="facts">
<dt>Vendor</dt><dd><%= it.receipt.vendor %></dd>
<dt>Outcome</dt><dd><%= it.receipt.verdict %></dd>
<dt>Status</dt><dd><%= it.status || 'unknown' %></dd>
<dt>Size</dt><dd><%= it.receipt.bodyBytes %> bytes</dd>
<dt>Received</dt><dd><%= it.when(it.receipt.receivedAt) %></dd>
<dt>Handled</dt><dd><%= it.receipt.handledAt ? it.when(it.receipt.handledAt) : 'not yet' %><% if (it.receipt.handlerError) { %> · handler failed: <%= it.receipt.handlerError %><% } %></dd>
</dl>
<h2>Headers</h2>
<p class="muted">Credentials and signatures are shown as [redacted].</p>
${scrollingTable(
  'Headers',
  `<table>
<thead><tr><th scope="col">Name</th><th scope="col">Value</th></tr></thead>
<tbody>
<% for (const [name, value] of it.receipt.headers) { %><tr><td><code><%= name %></code></td><td><%= value %></td></tr>
<% } %>
</tbody>
</table>`,
)}
<h2>Body</h2>
<% if (it.receipt.bodyTruncated) { %><p class="muted">The first <%= it.previewBytes %> bytes of <%= it.receipt.bodyBytes %>, as text.</p><% } %>
<% if (it.receipt.bodyBytes === 0) { %><p class="muted">Empty.</p><% } else { %><pre><%= it.receipt.bodyPreview %></pre><% } %>
`);

// The status each verdict was answered with (see routes/ehr-webhooks.ts).
const statusOf: Record<string, number> = {
  valid: 202,
  replayed: 202,
  invalid_signature: 401,
  unknown_vendor: 404,
  vendor_not_supported: 501,
};

/**
 * @internal The EHR receipts pages (audit.read): the list filtered by vendor, outcome and time,
 * and one receipt with its headers redacted and its body as escaped text, capped.
 */
export const ehrReceiptsPages: WebPage =
  ({ database }) =>
  async (app: FastifyInstance) => {
    const guard = pageRoute('audit.read');

    app.get('/ehr-receipts', guard, async (request, reply) =>
      withPageErrors(request, reply, '/ehr-receipts', async () => {
        const filters = {
          vendor: textField(request.query, 'vendor', 100),
          outcome: textField(request.query, 'outcome', 40),
          since: textField(request.query, 'since', 40),
          until: textField(request.query, 'until', 40),
        };
        const page = listPage(request.query, '/ehr-receipts', filters);
        const receipts = await listReceipts(database, {
          limit: page.limit,
          offset: page.offset,
          ...(filters.vendor ? { vendor: filters.vendor } : {}),
          ...(filters.outcome ? { verdict: filters.outcome } : {}),
          ...(filters.since ? { since: filters.since } : {}),
          ...(filters.until ? { until: filters.until } : {}),
        });
        return sendPage(request, reply, {
          title: 'EHR receipts',
          body: listTemplate.render({
            receipts,
            filters,
            outcomes: receiptVerdicts,
            paging: page.paging(receipts.length),
            when,
          }),
        });
      }),
    );

    app.get<{ Params: { id: string } }>('/ehr-receipts/:id', guard, async (request, reply) => {
      const receipt = await getReceipt(database, request.params.id);
      if (!receipt) return sendNotFoundPage(request, reply, '/ehr-receipts');
      return sendPage(request, reply, {
        title: `Receipt ${receipt.id}`,
        body: receiptTemplate.render({
          receipt,
          status: statusOf[receipt.verdict] ?? 0,
          previewBytes: RECEIPT_BODY_PREVIEW_BYTES,
          when,
        }),
      });
    });
  };

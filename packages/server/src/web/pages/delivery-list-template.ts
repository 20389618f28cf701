// The list of deliveries as both areas show it, the console's Deliveries page (every endpoint)
// and the subscriber portal's (its own endpoints): the filter form (endpoint, state and, where
// the area filters by it, kind) and the table of deliveries. Each area keeps its own URLs, its
// words, the look of its cells and who may see the page; the form and the table are written once.

import { listTable } from './list-page.js';

/** @internal What the delivery list's form and table read from `it`. */
export interface DeliveryListData {
  /** The endpoints the Endpoint filter offers. */
  endpoints: { id: string; url: string }[];
  /** The states the State filter offers. */
  states: readonly string[];
  /** The kinds the Kind filter offers, where the form has one. */
  kinds?: readonly string[];
  /** The filters as the page read them (`''` for any). */
  filters: { endpoint: string; state: string; kind?: string };
}

// One filter of the form: a select of `it.<values>`, the one in `it.filters.<name>` selected.
function choiceFilter(name: 'state' | 'kind', label: string, values: 'states' | 'kinds'): string {
  return `<label for="${name}">${label}
<select id="${name}" name="${name}">
<option value="">Any</option>
<% for (const ${name} of it.${values}) { %><option value="<%= ${name} %>"<%= ${name} === it.filters.${name} ? ' selected' : '' %>><%= ${name} %></option>
<% } %>
</select>
</label>`;
}

/**
 * @internal The template source of the delivery list's filter form, sent to `action` with GET:
 * the endpoint, the state and, with `kinds`, the kind (data: a {@link DeliveryListData}).
 */
export function deliveryFiltersPartial(options: { action: string; kinds: boolean }): string {
  return [
    `<form method="get" action="${options.action}" class="filters">
<label for="endpoint">Endpoint
<select id="endpoint" name="endpoint">
<option value="">Any</option>
<% for (const endpoint of it.endpoints) { %><option value="<%= endpoint.id %>"<%= endpoint.id === it.filters.endpoint ? ' selected' : '' %>><%= endpoint.url %> (<%= endpoint.id %>)</option>
<% } %>
</select>
</label>`,
    choiceFilter('state', 'State', 'states'),
    ...(options.kinds ? [choiceFilter('kind', 'Kind', 'kinds')] : []),
    `<button type="submit">Filter</button>
</form>`,
  ].join('\n');
}

/**
 * @internal The cells of a delivery's row that each area writes its own way (template source,
 * the row bound to `delivery`): its id (linked to the area's page of it), its event, its
 * endpoint, its state and when it was created. The attempts and the last result read alike.
 */
export interface DeliveryCells {
  delivery: string;
  event: string;
  endpoint: string;
  state: string;
  created: string;
}

/**
 * @internal The template source of the table of deliveries (`it.deliveries`, newest or oldest
 * first as the area reads them), or `empty` (template source) when there are none.
 */
export function deliveryTablePartial(options: { cells: DeliveryCells; empty: string }): string {
  const { cells } = options;
  return listTable({
    rows: 'deliveries',
    label: 'Deliveries',
    row: 'delivery',
    columns: ['Delivery', 'Event', 'Endpoint', 'State', 'Attempts', 'Last result', 'Created'],
    cells: `<td>${cells.delivery}</td>
<td>${cells.event}</td>
<td>${cells.endpoint}</td>
<td>${cells.state}</td>
<td><%= delivery.attempts %></td>
<td><%= delivery.lastStatus ?? delivery.lastError ?? '—' %></td>
<td>${cells.created}</td>`,
    empty: options.empty,
  });
}

// The list page of a family of records (Contacts, Deals): a search box and one choice filter (the
// API's `q` and `lifecycle` or `stage`), the count of what they match, a table of the newest
// records and the keyset paging links of record-list.ts. One template for every such list, so
// that the data pages read, filter and page alike; each family says only what differs.

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Queryable } from '../../storage/database.js';
import type { KeysetListSource } from '../../stores/resource-list-store.js';
import { sendPage } from '../page-context.js';
import { defineTemplate } from '../templates.js';
import { type ListTableOptions, listTable, type Paging, pagingPartial } from './list-page.js';
import { when, withPageErrors } from './page-helpers.js';
import { choiceField, readRecordListPage, searchField } from './record-list.js';

/** @internal What every data page says: the console reads, the API writes. */
export const readOnlyNotice = '<p class="muted">Read-only: changes are made through the API.</p>';

/** @internal A count with its noun: `1 deal`, `150 deals`. */
export function countOf(count: number, noun: string): string {
  return `${count.toLocaleString('en-US')} ${noun}${count === 1 ? '' : 's'}`;
}

/** @internal A record (as `toItem` of its {@link KeysetListSource} makes it) as a cell shows it. */
export type RecordFormatter = (record: Record<string, unknown>) => string;

/** @internal What one family's list page says and shows; the rest is shared. */
export interface RecordListViewOptions {
  /** The page's title and heading, and the name of its table: `Contacts`. */
  title: string;
  /** The page's path, where the filter form sends the query and the paging links point. */
  path: string;
  /** How the family's rows are read, as the API's list reads them. */
  source: KeysetListSource;
  /** The noun of the count, singular: `contact`. */
  noun: string;
  /** The search box's placeholder: what `q` matches the start of. */
  searchPlaceholder: string;
  /** The choice filter: its query field (and the select's id), its label and its values. */
  choice: { name: string; label: string; values: readonly string[] };
  /** What follows the count when only the choice filters (` match`, ` in this stage`). */
  choiceMatch: string;
  /** The table: the name a row is bound to in `cells`, the headings and the cells. */
  table: Pick<ListTableOptions, 'row' | 'columns' | 'cells'>;
  /** The empty state: when a search matches nothing, when the choice does, when there is none. */
  empty: { search: string; choice: string; none: string };
  /** Functions the cells call on `it` (`it.name(contact)`, `it.amount(deal)`); `it.when` is given. */
  formatters: Record<string, RecordFormatter>;
}

/** @internal A family's list page, compiled once: {@link RecordListView.send} answers a request. */
export interface RecordListView {
  /** Reads the page the query asks for and sends it (or the page of a refused filter). */
  send(request: FastifyRequest, reply: FastifyReply, queryable: Queryable): Promise<FastifyReply>;
}

interface RecordListData {
  records: Record<string, unknown>[];
  choices: readonly string[];
  q: string;
  choice: string;
  choiceMatch: string;
  total: string;
  empty: RecordListViewOptions['empty'];
  paging: Paging;
  when: (iso: string | null | undefined) => string;
}

/**
 * @internal Compiles the list page of a family of records; call it once, at module level.
 *
 * @example
 * ```ts
 * const dealList = defineRecordListView({ title: 'Deals', path: '/deals', source: dealSource, … });
 * app.get('/deals', pageRoute('deals.read'), (request, reply) =>
 *   dealList.send(request, reply, database),
 * );
 * ```
 */
export function defineRecordListView(options: RecordListViewOptions): RecordListView {
  const { choice } = options;
  const template = defineTemplate<RecordListData>(`
<h1>${options.title}</h1>
${readOnlyNotice}
<form method="get" action="${options.path}" class="filters" role="search">
<label for="q">Search
<input id="q" name="q" type="search" value="<%= it.q %>" maxlength="100" placeholder="${options.searchPlaceholder}">
</label>
<label for="${choice.name}">${choice.label}
<select id="${choice.name}" name="${choice.name}">
<option value="">Any</option>
<% for (const value of it.choices) { %><option value="<%= value %>"<%= value === it.choice ? ' selected' : '' %>><%= value %></option>
<% } %>
</select>
</label>
<button type="submit">Search</button>
</form>
<p><strong><%= it.total %></strong><%= it.q ? ' match' : it.choice ? it.choiceMatch : '' %>, newest first.</p>
${listTable({
  rows: 'records',
  label: options.title,
  ...options.table,
  empty: '<%= it.q ? it.empty.search : it.choice ? it.empty.choice : it.empty.none %>',
})}${pagingPartial}
`);
  return {
    send: (request, reply, queryable) =>
      withPageErrors(request, reply, options.path, async () => {
        const q = searchField(request.query);
        const chosen = choiceField(request.query, choice.name, choice.values);
        const page = await readRecordListPage(queryable, {
          source: options.source,
          path: options.path,
          query: request.query,
          filters: { q, [choice.name]: chosen },
          request: { ...(q ? { q } : {}), ...(chosen ? { oneOf: [chosen] } : {}) },
        });
        return sendPage(request, reply, {
          title: options.title,
          body: template.render({
            ...options.formatters,
            records: page.items,
            choices: choice.values,
            q,
            choice: chosen,
            choiceMatch: options.choiceMatch,
            total: countOf(page.total, options.noun),
            empty: options.empty,
            paging: { previous: page.previous, next: page.next },
            when,
          }),
        });
      }),
  };
}

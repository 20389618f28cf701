// A paged list page: the offset read from the query string, the rows asked for, the links to the
// pages before and after (keeping the filters), and the table, or the empty state that says what
// to do next. Every list of the web application but the audit log and the data pages (cursor
// pages: Contacts and Deals walk the keyset both ways, record-list.ts) is one.
import { LIST_LIMITS } from '@followup/sdk';
import { textField } from './page-helpers.js';

/** @internal Rows per page of every list in the web application. */
export const PAGE_SIZE = 50;

/** @internal The most rows a list page may skip (deeper pages: narrow the filters). */
export const MAX_PAGE_OFFSET: number = LIST_LIMITS.maxOffset;

/** @internal The `offset` of a list page: a whole number up to {@link MAX_PAGE_OFFSET}, else 0. */
export function offsetField(query: unknown): number {
  const text = textField(query, 'offset', 7);
  return /^\d{1,6}$/.test(text) ? Math.min(Number(text), MAX_PAGE_OFFSET) : 0;
}

/** @internal Links to the previous and next page of an offset list, keeping the filters. */
export interface Paging {
  previous: string | null;
  next: string | null;
}

/** @internal The paging links of an offset list of which `count` rows were shown. */
export function paging(
  path: string,
  filters: Record<string, string>,
  offset: number,
  count: number,
): Paging {
  const link = (at: number) => {
    const query = new URLSearchParams(
      Object.entries({ ...filters, ...(at > 0 ? { offset: String(at) } : {}) }).filter(
        ([, value]) => value !== '',
      ),
    ).toString();
    return query ? `${path}?${query}` : path;
  };
  return {
    previous: offset > 0 ? link(Math.max(0, offset - PAGE_SIZE)) : null,
    next:
      count >= PAGE_SIZE && offset + PAGE_SIZE <= MAX_PAGE_OFFSET ? link(offset + PAGE_SIZE) : null,
  };
}

/** @internal One page of a list, as a page handler asks its store for it. */
export interface ListPage {
  /** Rows to ask for: {@link PAGE_SIZE}. */
  limit: number;
  /** Rows to skip, from the query string's `offset`. */
  offset: number;
  /** The paging links, once the page's rows are known. */
  paging(count: number): Paging;
}

/**
 * @internal The page of the list at `path` that the query string asks for; `filters` (the
 * query's other fields, as the page read them) are kept in the paging links.
 *
 * @example
 * ```ts
 * const page = listPage(request.query, '/users');
 * const users = await listUsers(database, { limit: page.limit, offset: page.offset });
 * listTemplate.render({ users, paging: page.paging(users.length) });
 * ```
 */
export function listPage(
  query: unknown,
  path: string,
  filters: Record<string, string> = {},
): ListPage {
  const offset = offsetField(query);
  return {
    limit: PAGE_SIZE,
    offset,
    paging: (count) => paging(path, filters, offset, count),
  };
}

/** @internal The paging links, for every list template (data: `it.paging`, a {@link Paging}). */
export const pagingPartial = `
<% if (it.paging.previous || it.paging.next) { %>
<nav class="paging" aria-label="Pages">
<% if (it.paging.previous) { %><a href="<%= it.paging.previous %>">Previous page</a><% } %>
<% if (it.paging.next) { %><a href="<%= it.paging.next %>">Next page</a><% } %>
</nav>
<% } %>`;

/** @internal What {@link listTable} writes: template source, with `it.<rows>` the rows. */
export interface ListTableOptions {
  /** The field of `it` that holds the rows, such as `users`. */
  rows: string;
  /** The name (or destructuring) one row is bound to in `row`, such as `user`. */
  row: string;
  /** The column headings, as template source. */
  columns: readonly string[];
  /** The cells of one row (`<td>…</td>` lines), as template source. */
  cells: string;
  /** What the empty state says (template source): what to do next, or how to widen the filters. */
  empty: string;
  /** A `<caption>` element, when the table has one. */
  caption?: string;
  /**
   * What the table holds, such as `Users`: the name of the region it scrolls in on a narrow
   * screen (a region a keyboard can reach, and so scroll).
   */
  label: string;
  /**
   * `cards`: on a narrow screen (under 40rem) each row becomes a card, each cell under its
   * column's heading, instead of a table that scrolls sideways: for tables whose rows carry
   * actions or long values (a URL), which a narrow column would break every few characters.
   */
  narrow?: 'scroll' | 'cards';
}

/**
 * @internal Gives each `<td` of a row's cells (template source) the heading of its column as
 * `data-label`, which a card shows above the value; cells that do not match the columns one to
 * one are left as they are.
 */
export function labelCells(cells: string, columns: readonly string[]): string {
  const count = cells.match(/<td(?=[\s>])/g)?.length ?? 0;
  if (count !== columns.length) return cells;
  let index = 0;
  return cells.replace(/<td(?=[\s>])/g, () => {
    const label = (columns[index++] ?? '').replace(/<[^>]*>/g, '').replace(/"/g, '&quot;');
    return `<td data-label="${label}"`;
  });
}

/**
 * @internal Wraps a table in a region of its own that scrolls sideways when the screen is
 * narrower than the table (the page itself never does), reachable with Tab so that a keyboard
 * can scroll it too.
 */
export function scrollingTable(label: string, table: string): string {
  return `<div class="table-scroll" role="region" aria-label="${label}" tabindex="0">
${table}
</div>`;
}

/**
 * @internal The template source of a list: the empty state when there are no rows, otherwise a
 * table with a heading per column and a row per item. Follow it with {@link pagingPartial} for
 * an offset list.
 */
export function listTable(options: ListTableOptions): string {
  const headings = options.columns.map((column) => `<th scope="col">${column}</th>`).join('');
  const cards = options.narrow === 'cards';
  return `<% if (it.${options.rows}.length === 0) { %>
<p class="notice">${options.empty}</p>
<% } else { %>
${scrollingTable(
  options.label,
  `<table${cards ? ' class="cards"' : ''}>
${options.caption ? `${options.caption}\n` : ''}<thead><tr>${headings}</tr></thead>
<tbody>
<% for (const ${options.row} of it.${options.rows}) { %>
<tr>
${cards ? labelCells(options.cells, options.columns) : options.cells}
</tr>
<% } %>
</tbody>
</table>`,
)}
<% } %>`;
}

import { LIFECYCLE_VALUES } from '@followup/sdk';
import type { FastifyInstance } from 'fastify';
import { contactListFilters, contactStorage, contactTable } from '../../stores/contact-store.js';
import { readContactTimeline, TIMELINE_KINDS } from '../../stores/contact-timeline-store.js';
import { listContactDeals } from '../../stores/deal-store.js';
import type { KeysetListSource } from '../../stores/resource-list-store.js';
import { itemColumns, itemFromRow } from '../../stores/resource-rows.js';
import { resourceStore } from '../../stores/resource-store.js';
import { pageContext, sendPage } from '../page-context.js';
import { defineTemplate } from '../templates.js';
import {
  detailsOf,
  kindLabels,
  type TimelineLine,
  timelineKinds,
} from './contact-timeline-view.js';
import { dealAmount, dealCells } from './deals-pages.js';
import { listTable, PAGE_SIZE } from './list-page.js';
import { pageRoute, sendNotFoundPage, when } from './page-helpers.js';
import { recordIdParam } from './record-list.js';
import { countOf, defineRecordListView, readOnlyNotice } from './record-list-view.js';
import type { WebPage } from './web-page.js';

/** The most deals and timeline entries a contact's page shows. */
const CONTACT_PAGE_ROWS = PAGE_SIZE;

const contactSource: KeysetListSource = {
  table: 'contacts',
  columns: itemColumns(contactStorage),
  filters: contactListFilters,
  toItem: (row) => itemFromRow(contactStorage, row),
};

/** A contact's name as people read it; `[erased]` values read as they are. */
function nameOf(contact: Record<string, unknown>): string {
  return [contact.firstName, contact.lastName]
    .filter((part) => typeof part === 'string' && part !== '')
    .join(' ');
}

const contactList = defineRecordListView({
  title: 'Contacts',
  path: '/contacts',
  source: contactSource,
  noun: 'contact',
  searchPlaceholder: 'Start of a name or e-mail',
  choice: { name: 'lifecycle', label: 'Lifecycle', values: LIFECYCLE_VALUES },
  choiceMatch: ' match',
  table: {
    row: 'contact',
    columns: ['Name', 'E-mail', 'Lifecycle', 'Created'],
    cells: `<td class="words"><a href="/contacts/<%= encodeURIComponent(contact.id) %>"><%= it.name(contact) %></a></td>
<td><span class="no-break"><%= contact.email ?? '—' %></span></td>
<td><span class="no-break"><%= contact.lifecycle %></span></td>
<td><span class="no-break"><%= it.when(contact.createdAt) %></span></td>`,
  },
  empty: {
    search:
      'No contact matches. Search matches the start of a first name, a last name or an e-mail address; clear the search or choose Any to see every contact.',
    choice:
      'No contact matches. Search matches the start of a first name, a last name or an e-mail address; clear the search or choose Any to see every contact.',
    none: 'No contacts yet. Contacts are created through the API (POST /api/contacts).',
  },
  formatters: { name: nameOf },
});

const contactTemplate = defineTemplate<{
  contact: Record<string, unknown> | undefined;
  id: string;
  title: string;
  gone: boolean;
  erased: boolean;
  deals: Record<string, unknown>[];
  dealTotal: number;
  dealCount: string;
  mayReadDeals: boolean;
  timeline: TimelineLine[];
  more: boolean;
  omitted: string;
  amount: (deal: Record<string, unknown>) => string;
  when: (iso: string | null | undefined) => string;
}>(`
<h1><%= it.title %></h1>
${readOnlyNotice}
<% if (it.gone) { %><p class="notice warning">This contact was deleted<%= it.erased ? ' and erased' : '' %>. What was recorded about it is below<%= it.erased ? '; erased values read [erased]' : '' %>.</p><% } %>
<% if (it.contact) { %>
<h2 id="fields">Fields</h2>
<dl class="facts" aria-labelledby="fields">
<dt>Id</dt><dd><code class="no-break"><%= it.contact.id %></code></dd>
<dt>First name</dt><dd><%= it.contact.firstName %></dd>
<dt>Last name</dt><dd><%= it.contact.lastName %></dd>
<dt>Lifecycle</dt><dd><%= it.contact.lifecycle %></dd>
<dt>E-mail</dt><dd><%= it.contact.email ?? '—' %></dd>
<dt>Phone</dt><dd><%= it.contact.phone ?? '—' %></dd>
<dt>Created</dt><dd><%= it.when(it.contact.createdAt) %></dd>
<% if (it.contact.updatedAt) { %><dt>Updated</dt><dd><%= it.when(it.contact.updatedAt) %></dd><% } %>
</dl>
<% } %>
<% if (it.mayReadDeals && !it.gone) { %>
<h2>Deals</h2>
<p><%= it.dealCount %><% if (it.dealTotal > it.deals.length) { %>; the newest <%= it.deals.length %> are shown<% } %>.</p>
<% if (it.deals.length > 0) { %>
${listTable({
  rows: 'deals',
  row: 'deal',
  label: 'Deals of this contact',
  columns: ['Title', 'Stage', 'Amount'],
  cells: dealCells,
  empty: '',
})}
<% } %>
<% } %>
<h2 id="timeline">Timeline</h2>
<p>What happened to this contact and its deals, newest first<%= it.omitted %>.</p>
<% if (it.timeline.length === 0) { %>
<p class="notice">Nothing recorded yet.</p>
<% } else { %>
<ol class="timeline" aria-labelledby="timeline">
<% for (const line of it.timeline) { %>
<li>
<p><span class="no-break"><%= it.when(line.entry.at) %></span> · <strong><%= line.kind %></strong> <code class="no-break"><%= line.entry.name %></code>
· <% if (line.entry.subject.type === 'contact') { %>this contact<% } else if (line.dealLink) { %><a href="/deals/<%= encodeURIComponent(line.entry.subject.id) %>">deal <code class="no-break"><%= line.entry.subject.id %></code></a><% } else { %>deal <code class="no-break"><%= line.entry.subject.id %></code><% } %>
<% if (line.entry.delivery) { %>· <a href="/deliveries/<%= encodeURIComponent(line.entry.id) %>">delivery <code class="no-break"><%= line.entry.id %></code></a><% } %>
<% if (line.entry.actor) { %>· by <%= line.entry.actor.type %><% if (line.entry.actor.id) { %> <code class="no-break"><%= line.entry.actor.id %></code><% } %><% } %></p>
<% if (line.details.length > 0) { %><dl class="facts">
<% for (const detail of line.details) { %><dt><%= detail.key %></dt><dd><%= detail.value %></dd>
<% } %></dl><% } %>
</li>
<% } %>
</ol>
<% } %>
<% if (it.more) { %><p class="muted">Only the newest <%= it.timeline.length %> entries are shown. Older ones are in the event feed (GET /api/events)<%= it.omitted ? '' : ', the Audit log and the Deliveries' %>.</p><% } %>
<p><a href="/contacts">All contacts</a></p>
`);

/**
 * @internal The Contacts pages (contacts.read), read-only: `/contacts` (newest first, the search
 * `q` and the `lifecycle` filter of the API, keyset pages, the count) and `/contacts/{id}` (the
 * fields, the deals, the timeline). A deleted contact's page shows what was recorded about it,
 * as the events carry it (`[erased]` after an erasure); an id nothing mentions is a 404.
 */
export const contactsPages: WebPage =
  ({ database, clock, newId }) =>
  async (app: FastifyInstance) => {
    // Reads only: the store of the API's routes, for its readRecord.
    const contacts = resourceStore(contactTable({ clock, newId }), { clock, newId });

    app.get('/contacts', pageRoute('contacts.read'), (request, reply) =>
      contactList.send(request, reply, database),
    );

    app.get('/contacts/:id', pageRoute('contacts.read'), async (request, reply) => {
      const id = recordIdParam(request.params);
      if (id === undefined) return sendNotFoundPage(request, reply, '/contacts');
      const { capabilities } = pageContext(request);
      const kinds = timelineKinds(capabilities);
      const mayReadDeals = capabilities.has('deals.read');
      const [contact, timeline, deals] = await Promise.all([
        contacts.readRecord(database, id),
        readContactTimeline(database, { contactId: id, limit: CONTACT_PAGE_ROWS, kinds }),
        mayReadDeals
          ? listContactDeals(database, { contactId: id, limit: CONTACT_PAGE_ROWS })
          : { deals: [], total: 0 },
      ]);
      if (!contact && timeline.entries.length === 0) {
        return sendNotFoundPage(request, reply, '/contacts');
      }
      // A deleted contact: its values as its newest event carried them ("[erased]" after an
      // erasure, as the API's events say), when one of the entries shown has them.
      const lastKnown =
        contact ??
        timeline.entries.find(
          (entry) =>
            entry.kind === 'event' &&
            entry.subject.type === 'contact' &&
            'lifecycle' in entry.details,
        )?.details;
      const erased = timeline.entries.some((entry) => entry.name === 'contact.erased');
      const dealIds = new Set(deals.deals.map((deal) => String(deal.id)));
      const name = lastKnown ? nameOf(lastKnown) : '';
      const title = contact
        ? name
        : erased
          ? 'Erased contact'
          : name
            ? `${name} (deleted)`
            : 'Deleted contact';
      return sendPage(request, reply, {
        title,
        body: contactTemplate.render({
          contact: lastKnown ? { id, ...lastKnown } : undefined,
          id,
          title,
          gone: !contact,
          erased,
          deals: deals.deals,
          dealTotal: deals.total,
          dealCount: countOf(deals.total, 'deal'),
          mayReadDeals,
          timeline: timeline.entries.map((entry) => ({
            entry,
            kind: kindLabels[entry.kind],
            dealLink: entry.subject.type === 'deal' && dealIds.has(entry.subject.id),
            details: detailsOf(entry),
          })),
          more: timeline.more,
          omitted: kinds.length < TIMELINE_KINDS.length ? ' (the entries your role may read)' : '',
          amount: dealAmount,
          when,
        }),
      });
    });
  };

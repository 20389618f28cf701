import type { FastifyInstance } from 'fastify';
import { listAuditEntriesNewestFirst } from '../../audit/audit-log.js';
import type { AuditEntry } from '../../stores/audit-store.js';
import { sendPage } from '../page-context.js';
import { defineTemplate } from '../templates.js';
import { listTable, PAGE_SIZE } from './list-page.js';
import { pageRoute, textField, when, withPageErrors } from './page-helpers.js';
import type { WebPage } from './web-page.js';

const auditTemplate = defineTemplate<{
  entries: { entry: AuditEntry; metadata: string }[];
  action: string;
  actor: string;
  next: string | null;
  first: string | null;
  when: (iso: string | null | undefined) => string;
}>(`
<h1>Audit log</h1>
<p>Who did what, newest first: tokens issued and revoked, accounts, users, deletions.</p>
<form method="get" action="/audit-log" class="filters">
<label for="action">Action
<input id="action" name="action" value="<%= it.action %>" maxlength="100" placeholder="token.revoked">
</label>
<label for="actor">Actor
<input id="actor" name="actor" value="<%= it.actor %>" maxlength="100" placeholder="user, operator or an id">
</label>
<button type="submit">Filter</button>
</form>
${listTable({
  rows: 'entries',
  label: 'Audit entries',
  row: '{ entry, metadata }',
  columns: ['When', 'Action', 'Actor', 'Target', 'Details'],
  cells: `<td><%= it.when(entry.occurredAt) %></td>
<td><code><%= entry.action %></code></td>
<td><%= entry.actor.type %><% if (entry.actor.id) { %> <code><%= entry.actor.id %></code><% } %></td>
<td><%= entry.target.type %> <code><%= entry.target.id %></code></td>
<td><code><%= metadata %></code></td>`,
  empty:
    "<%= it.action || it.actor ? 'No entry matches these filters. Clear them to see every entry.' : 'Nothing has been audited yet. Issuing a token, revoking one or inviting a user writes an entry here.' %>",
})}
<nav class="paging" aria-label="Pages">
<% if (it.first) { %><a href="<%= it.first %>">Newest entries</a><% } %>
<% if (it.next) { %><a href="<%= it.next %>">Older entries</a><% } %>
</nav>
`);

function link(filters: Record<string, string>): string {
  const query = new URLSearchParams(Object.entries(filters).filter(([, value]) => value !== ''));
  const text = query.toString();
  return text ? `/audit-log?${text}` : '/audit-log';
}

/** @internal The Audit log page (audit.read): newest first, cursor pages, action and actor filters. */
export const auditLogPage: WebPage =
  ({ database }) =>
  async (app: FastifyInstance) => {
    app.get('/audit-log', pageRoute('audit.read'), async (request, reply) =>
      withPageErrors(request, reply, '/audit-log', async () => {
        const action = textField(request.query, 'action', 100);
        const actor = textField(request.query, 'actor', 100);
        const cursor = textField(request.query, 'cursor', 100);
        const page = await listAuditEntriesNewestFirst(database, {
          limit: PAGE_SIZE,
          ...(action ? { action } : {}),
          ...(actor ? { actor } : {}),
          ...(cursor ? { cursor } : {}),
        });
        return sendPage(request, reply, {
          title: 'Audit log',
          body: auditTemplate.render({
            entries: page.entries.map((entry) => ({
              entry,
              metadata: JSON.stringify(entry.metadata),
            })),
            action,
            actor,
            next: page.nextCursor ? link({ action, actor, cursor: page.nextCursor }) : null,
            first: cursor ? link({ action, actor }) : null,
            when,
          }),
        });
      }),
    );
  };

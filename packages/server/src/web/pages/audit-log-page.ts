import type { FastifyInstance } from 'fastify';
import { listAuditEntriesNewestFirst } from '../../audit/audit-log.js';
import type { Capability } from '../../capabilities.js';
import type { AuditEntry, AuditTarget } from '../../stores/audit-store.js';
import { pageContext, sendPage } from '../page-context.js';
import { defineTemplate } from '../templates.js';
import { type ActorLabel, actorLabels } from './actor-labels.js';
import { listTable, PAGE_SIZE } from './list-page.js';
import { pageRoute, textField, when, withPageErrors } from './page-helpers.js';
import { actorPartial, detailEntries, detailsPartial, idPartial } from './readable-partials.js';
import { shortId } from './short-id.js';
import type { WebPage } from './web-page.js';

/** One row of the audit log as the page shows it. */
interface AuditRow {
  entry: AuditEntry;
  actor: ActorLabel;
  /** Our page about the target, when there is one the viewer may open. */
  targetHref: string | null;
  details: [string, string][];
}

const auditTemplate = defineTemplate<{
  entries: AuditRow[];
  action: string;
  actor: string;
  next: string | null;
  first: string | null;
  when: (iso: string | null | undefined) => string;
  shortId: (id: string) => string;
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
  row: '{ entry, actor, targetHref, details }',
  columns: ['When', 'Action', 'Actor', 'Target', 'Details'],
  cells: `<td><span class="when"><%= it.when(entry.occurredAt) %></span></td>
<td><code class="action"><%= entry.action %></code></td>
<td>${actorPartial('actor')}</td>
<td><%= entry.target.type.replaceAll('_', ' ') %> ${idPartial('entry.target.id', { href: 'targetHref' })}</td>
<td>${detailsPartial('details')}</td>`,
  empty:
    "<%= it.action || it.actor ? 'No entry matches these filters. Clear them to see every entry.' : 'Nothing has been audited yet. Issuing a token, revoking one or inviting a user writes an entry here.' %>",
})}
<nav class="paging" aria-label="Pages">
<% if (it.first) { %><a href="<%= it.first %>">Newest entries</a><% } %>
<% if (it.next) { %><a href="<%= it.next %>">Older entries</a><% } %>
</nav>
`);

// Our page about an audited record, when there is one and the viewer may open it.
function targetHref(target: AuditTarget, capabilities: ReadonlySet<Capability>): string | null {
  const id = encodeURIComponent(target.id);
  if (target.type === 'service_account' && capabilities.has('users.manage')) {
    return `/service-accounts/${id}`;
  }
  if (target.type === 'webhook_endpoint' && capabilities.has('webhooks.manage')) {
    return `/webhook-endpoints/${id}`;
  }
  if (target.type === 'delivery' && capabilities.has('webhooks.manage')) {
    return `/deliveries/${id}`;
  }
  return null;
}

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
        const { capabilities } = pageContext(request);
        const labelOf = await actorLabels(database, {
          actors: page.entries.map((entry) => entry.actor),
          capabilities,
        });
        return sendPage(request, reply, {
          title: 'Audit log',
          body: auditTemplate.render({
            entries: page.entries.map((entry) => ({
              entry,
              actor: labelOf(entry.actor),
              targetHref: targetHref(entry.target, capabilities),
              details: detailEntries(entry.metadata),
            })),
            action,
            actor,
            next: page.nextCursor ? link({ action, actor, cursor: page.nextCursor }) : null,
            first: cursor ? link({ action, actor }) : null,
            when,
            shortId,
          }),
        });
      }),
    );
  };

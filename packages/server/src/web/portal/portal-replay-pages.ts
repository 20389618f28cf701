import {
  LIST_LIMITS,
  REPLAY_LIMITS,
  REPLAY_STATES,
  replayInputSchema,
  WEBHOOK_EVENT_KINDS,
} from '@followup/sdk';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.js';
import { eventTypeCatalogue } from '../../events/event-types.js';
import type { PortalActions } from '../../portal/portal-actions.js';
import { ProblemError } from '../../problem-error.js';
import { csrfPartial, textField } from '../pages/page-helpers.js';
import { defineTemplate } from '../templates.js';
import { listField, utcInstant } from './portal-form-fields.js';
import { portalSessionOf, sendPortalPage, withPortalErrors } from './portal-layout.js';
import { portalCsrfToken } from './portal-session-cookie.js';

const replayFormTemplate = defineTemplate<{
  csrfToken: string;
  endpoints: { id: string; url: string }[];
  endpoint: string;
  since: string;
  kinds: readonly string[];
  states: readonly string[];
  defaultStates: readonly string[];
  maxAgeDays: number;
}>(`
<h1>Replay</h1>
<p>Sends an endpoint again the events of a time window, as new deliveries: after an outage of your receiver, for example. Events up to <%= it.maxAgeDays %> days old.</p>
<% if (it.endpoints.length === 0) { %><p class="notice">No endpoints yet: <a href="/portal/endpoints/new">add one</a> first.</p><% } else { %>
<form method="post" action="/portal/replay" class="stacked">
${csrfPartial}
<label for="replay-endpoint">Endpoint
<select id="replay-endpoint" name="endpoint" required>
<% for (const endpoint of it.endpoints) { %><option value="<%= endpoint.id %>"<%= endpoint.id === it.endpoint ? ' selected' : '' %>><%= endpoint.url %> (<%= endpoint.id %>)</option>
<% } %>
</select>
</label>
<p class="muted" id="time-format">Times in UTC, such as 2026-03-01T09:00, or with a zone: 2026-03-01T09:00:00+01:00.</p>
<label for="since">From
<input id="since" name="since" required maxlength="40" value="<%= it.since %>" aria-describedby="time-format" autocomplete="off">
</label>
<label for="until">Until (empty: now)
<input id="until" name="until" maxlength="40" aria-describedby="time-format" autocomplete="off">
</label>
<fieldset>
<legend>Kinds</legend>
<p class="muted">Leave every box empty to replay every kind the endpoint takes.</p>
<% for (const kind of it.kinds) { %><label class="check"><input type="checkbox" name="kinds" value="<%= kind %>"> <%= kind %></label>
<% } %>
</fieldset>
<fieldset>
<legend>States</legend>
<p class="muted">Which events to send again, by their delivery to the endpoint; missing: never sent to it (written before it existed or while it was disabled).</p>
<% for (const state of it.states) { %><label class="check"><input type="checkbox" name="states" value="<%= state %>"<% if (it.defaultStates.includes(state)) { %> checked<% } %>> <%= state %></label>
<% } %>
</fieldset>
<button type="submit">Replay</button>
</form>
<% } %>
`);

const progressTemplate = defineTemplate<{
  replay: { id: string; state: string; count: number; sent: number; endpointId: string };
}>(`
<p><a href="/portal/replay">Replay</a></p>
<h1>Replay <%= it.replay.id %></h1>
<dl class="facts">
<dt>Endpoint</dt><dd><a href="/portal/endpoints/<%= encodeURIComponent(it.replay.endpointId) %>"><code><%= it.replay.endpointId %></code></a></dd>
<dt>State</dt><dd><%= it.replay.state === 'running' ? 'Running' : 'Done' %></dd>
<dt>Progress</dt><dd><%= it.replay.sent %> of <%= it.replay.count %> deliveries ended</dd>
</dl>
<% if (it.replay.state === 'running') { %><p><a href="/portal/replays/<%= encodeURIComponent(it.replay.id) %>">Refresh</a></p><% } %>
<p><a href="/portal/deliveries?endpoint=<%= encodeURIComponent(it.replay.endpointId) %>">Deliveries of this endpoint</a></p>
`);

const eventTypesTemplate = defineTemplate<{
  types: { kind: string; description: string; schema: string }[];
}>(`
<h1>Event types</h1>
<p>The kinds of events an endpoint can take, and the JSON Schema of each one's <code>data</code>.</p>
<% for (const type of it.types) { %>
<section aria-labelledby="kind-<%= type.kind %>">
<h2 id="kind-<%= type.kind %>"><code><%= type.kind %></code></h2>
<p><%= type.description %></p>
<pre><%= type.schema %></pre>
</section>
<% } %>
`);

/**
 * @internal The portal's **Replay** (a window, kinds and states, then the replay's progress) and
 * **Event types** (the catalogue with schemas) pages.
 */
export function registerPortalReplayPages(
  app: FastifyInstance,
  options: { actions: PortalActions; clock: Clock },
): void {
  const { actions, clock } = options;
  const catalogue = eventTypeCatalogue().map(({ kind, description, schema }) => ({
    kind,
    description,
    schema: JSON.stringify(schema, null, 2),
  }));

  app.get('/portal/replay', async (request, reply) => {
    const session = portalSessionOf(request);
    const endpoints = await actions.listEndpoints(session.subscriber, {
      after: undefined,
      limit: LIST_LIMITS.maxLimit,
    });
    // An hour ago, to the minute, in UTC: the form's own format.
    const since = new Date(clock.now() - 3_600_000).toISOString().slice(0, 16);
    return sendPortalPage(request, reply, {
      title: 'Replay',
      body: replayFormTemplate.render({
        csrfToken: portalCsrfToken(session),
        endpoints: endpoints.items.map(({ id, url }) => ({ id, url })),
        endpoint: textField(request.query, 'endpoint', 100),
        since,
        kinds: WEBHOOK_EVENT_KINDS,
        states: REPLAY_STATES,
        defaultStates: REPLAY_LIMITS.defaultStates,
        maxAgeDays: REPLAY_LIMITS.maxAgeDays,
      }),
    });
  });

  app.post('/portal/replay', async (request, reply) =>
    withPortalErrors(request, reply, '/portal/replay', async () => {
      const { subscriber } = portalSessionOf(request);
      const kinds = listField(request.body, 'kinds');
      const until = utcInstant(textField(request.body, 'until', 40));
      const parsed = replayInputSchema.safeParse({
        since: utcInstant(textField(request.body, 'since', 40)) ?? '',
        ...(until === undefined ? {} : { until }),
        ...(kinds.length > 0 ? { kinds } : {}),
        states: listField(request.body, 'states'),
      });
      if (!parsed.success) {
        throw new ProblemError({
          code: 'validation_failed',
          detail: 'The request is not valid: see errors.',
          errors: parsed.error.issues.map((issue) => ({
            path: issue.path.join('.'),
            message: issue.message,
          })),
        });
      }
      const { since, until: end, states } = parsed.data;
      const queued = await actions.replay(subscriber, {
        endpointId: textField(request.body, 'endpoint', 100),
        since: new Date(since),
        until: end === undefined ? undefined : new Date(end),
        kinds: parsed.data.kinds,
        states,
      });
      return reply.redirect(`/portal/replays/${encodeURIComponent(queued.id)}`, 303);
    }),
  );

  app.get<{ Params: { id: string } }>('/portal/replays/:id', async (request, reply) =>
    withPortalErrors(request, reply, '/portal/replay', async () => {
      const replay = await actions.replayProgress(
        portalSessionOf(request).subscriber,
        request.params.id,
      );
      return sendPortalPage(request, reply, {
        title: `Replay ${replay.id}`,
        body: progressTemplate.render({ replay }),
      });
    }),
  );

  app.get('/portal/event-types', async (request, reply) =>
    sendPortalPage(request, reply, {
      title: 'Event types',
      body: eventTypesTemplate.render({ types: catalogue }),
    }),
  );
}

// Template sources shared by the console's tables and pages: an id shortened with its copy
// button, an actor by name and kind, details as a key/value list. Each takes the JavaScript
// expression of its value in the template, and needs `it.shortId` (from `short-id.ts`) in the
// template's data where it says so.

/**
 * @internal An id shortened in the middle (`usr_01M8…3FQ`, never broken across lines), the whole
 * id in its `title` and, with JavaScript, a button that copies the whole id. `href` is the
 * template expression of a link to our own page about it (no link when it is `null`). Needs
 * `it.shortId`.
 *
 * @example
 * ```ts
 * idPartial('delivery.id', { href: '`/deliveries/${encodeURIComponent(delivery.id)}`' });
 * ```
 */
export function idPartial(expression: string, options: { href?: string } = {}): string {
  const text = `<code><%= it.shortId(${expression}) %></code>`;
  const shown = options.href
    ? `<% if (${options.href}) { %><a href="<%= ${options.href} %>">${text}</a><% } else { %>${text}<% } %>`
    : text;
  return `<span class="id" title="<%= ${expression} %>">${shown}<button type="button" class="copy" data-copy-text="<%= ${expression} %>" data-js-only aria-label="Copy <%= ${expression} %>">Copy</button></span>`;
}

/**
 * @internal An actor (an `ActorLabel`, from `actorLabels`): the name, linked, then the kind in
 * words; the shortened id in place of a name no longer known; the operator and the server by
 * their kind alone. Needs `it.shortId`.
 */
export function actorPartial(expression: string): string {
  return `<% { const shownActor = ${expression}; %><span class="actor"><% if (shownActor.id) { %><% if (shownActor.href) { %><a href="<%= shownActor.href %>"><%= shownActor.name ?? it.shortId(shownActor.id) %></a><% } else { %><%= shownActor.name ?? it.shortId(shownActor.id) %><% } %> <span class="muted kind">(<%= shownActor.kind %>)</span><% } else { %><%= shownActor.kind %><% } %></span><% } %>`;
}

/**
 * @internal Details (the `[key, text]` pairs of `detailEntries`) as a key/value list, or a dash
 * when there are none.
 */
export function detailsPartial(expression: string): string {
  return `<% { const detailList = ${expression}; %><% if (detailList.length === 0) { %>—<% } else { %><dl class="details"><% for (const [key, text] of detailList) { %><dt><%= key %></dt><dd><%= text %></dd><% } %></dl><% } %><% } %>`;
}

/**
 * @internal An object's fields as `[key, text]` pairs for {@link detailsPartial}: a string as
 * it is, a list of strings and numbers comma-separated, anything else (a number, an object) as
 * JSON; `null` and missing values as a dash.
 */
export function detailEntries(details: Record<string, unknown>): [string, string][] {
  return Object.entries(details).map(([key, value]) => [key, detailText(value)]);
}

function detailText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '—';
  const plainList =
    Array.isArray(value) &&
    value.every((item) => typeof item === 'string' || typeof item === 'number');
  return plainList ? value.join(', ') : JSON.stringify(value);
}

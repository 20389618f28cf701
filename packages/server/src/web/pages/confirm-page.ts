// The confirm step of a destructive action (revoke, disable, remove): the row's menu links to a
// page that says what will happen, and only that page's form does it. A page, not a script's
// `confirm()` dialog: it works without JavaScript and a keyboard or screen reader reads it as
// any other page.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pageContext, sendPage } from '../page-context.js';
import { defineTemplate } from '../templates.js';
import { csrfPartial } from './page-helpers.js';

/** @internal What a confirm page says and does. */
export interface ConfirmPage {
  /** The question, as the page's heading: `Disable ada@example.com?`. */
  heading: string;
  /** What the thing is, in a line: its name, its id, when it was last used. */
  about?: string | undefined;
  /** What happens, and whether it can be undone. */
  warning: string;
  /** Where the form posts: the action's own path. */
  action: string;
  /** The button that does it: `Disable user`. */
  button: string;
  /** Where **Cancel** goes back to. */
  cancel: string;
  /** More fields the form sends, such as where the action comes back to. */
  fields?: Record<string, string> | undefined;
}

const confirmTemplate = defineTemplate<ConfirmPage & { csrfToken: string }>(`
<h1><%= it.heading %></h1>
<% if (it.about) { %><p><%= it.about %></p><% } %>
<p class="notice warning"><%= it.warning %></p>
<form method="post" action="<%= it.action %>" class="inline">
${csrfPartial}
<% for (const [name, value] of Object.entries(it.fields ?? {})) { %><input type="hidden" name="<%= name %>" value="<%= value %>">
<% } %><button type="submit" class="danger"><%= it.button %></button>
</form>
<p><a href="<%= it.cancel %>">Cancel</a></p>
`);

/**
 * @internal Sends the confirm page of a destructive action: its heading, what it does, the
 * button that does it (a form posting to `action`, with the CSRF token) and **Cancel**.
 */
export function sendConfirmPage(
  request: FastifyRequest,
  reply: FastifyReply,
  page: ConfirmPage,
): FastifyReply {
  return sendPage(request, reply, {
    title: page.heading,
    body: confirmTemplate.render({ ...page, csrfToken: pageContext(request).csrfToken }),
  });
}

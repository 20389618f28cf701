import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PortalSession } from '../../portal/portal-sessions.js';
import { assetPaths } from '../assets.js';
import { pageRefusalOf } from '../page-refusal.js';
import { defineTemplate } from '../templates.js';
import { portalCsrfToken } from './portal-session-cookie.js';

// The document around every portal page: the console's stylesheet and script, the portal's own
// navigation, and **Leave portal** in place of Sign out.

declare module 'fastify' {
  interface FastifyRequest {
    /** The portal session of the request's portal cookie, once the portal's hook ran; or `null`. */
    portalSession: PortalSession | null;
  }
}

/** @internal The portal's navigation; its labels are what the subscriber portal's docs name. */
export const portalNavigation = [
  { href: '/portal/endpoints', label: 'Endpoints' },
  { href: '/portal/deliveries', label: 'Deliveries' },
  { href: '/portal/replay', label: 'Replay' },
  { href: '/portal/event-types', label: 'Event types' },
] as const;

const layoutTemplate = defineTemplate<{
  title: string;
  body: string;
  currentPath: string;
  session: { subscriber: string; csrfToken: string } | undefined;
  navigation: typeof portalNavigation;
  assets: typeof assetPaths;
}>(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title><%= it.title %> · FollowUp webhooks portal</title>
<link rel="stylesheet" href="<%= it.assets.css %>">
<script src="<%= it.assets.js %>" defer></script>
<% if (it.session) { %><meta name="csrf-token" content="<%= it.session.csrfToken %>">
<% } %></head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header">
<a class="brand" href="/portal/endpoints">Webhooks portal</a>
<% if (it.session) { %>
<nav class="site-nav" aria-label="Main">
<ul>
<% for (const item of it.navigation) { %>
<li><a href="<%= item.href %>"<% if (it.currentPath === item.href || it.currentPath.startsWith(item.href + '/')) { %> aria-current="page"<% } %>><%= item.label %></a></li>
<% } %>
</ul>
</nav>
<div class="account">
<span class="who" title="Subscriber <%= it.session.subscriber %>"><span class="who-name"><%= it.session.subscriber %></span></span>
<form method="post" action="/portal/leave">
<input type="hidden" name="_csrf" value="<%= it.session.csrfToken %>">
<button type="submit" class="secondary">Leave portal</button>
</form>
</div>
<% } %>
</header>
<main id="main">
<%~ it.body %>
</main>
</body>
</html>
`);

/** @internal Sends a portal page: the portal's layout around `body`, `text/html`, `no-store`. */
export function sendPortalPage(
  request: FastifyRequest,
  reply: FastifyReply,
  options: { title: string; body: string; status?: number },
): FastifyReply {
  const session = request.portalSession;
  const html = layoutTemplate.render({
    title: options.title,
    body: options.body,
    currentPath: request.url.split('?')[0] ?? '/portal',
    session: session
      ? { subscriber: session.subscriber, csrfToken: portalCsrfToken(session) }
      : undefined,
    navigation: portalNavigation,
    assets: assetPaths,
  });
  return reply
    .status(options.status ?? 200)
    .header('Content-Type', 'text/html; charset=utf-8')
    .header('Cache-Control', 'no-store')
    .send(html);
}

const messageTemplate = defineTemplate<{ title: string; message: string; back?: string }>(`
<h1><%= it.title %></h1>
<p class="notice error" role="alert"><%= it.message %></p>
<% if (it.back) { %><p><a href="<%= it.back %>">Back</a></p><% } %>
`);

/** @internal Sends a page that says why nothing was done, with its status. */
export function sendPortalMessage(
  request: FastifyRequest,
  reply: FastifyReply,
  options: { status: number; title: string; message: string; back?: string },
): FastifyReply {
  return sendPortalPage(request, reply, {
    title: options.title,
    status: options.status,
    body: messageTemplate.render(options),
  });
}

/**
 * @internal The `onRequest` hook of every portal page but the link's: without a portal session,
 * 401 and a page that says how to get in again.
 */
export async function requirePortalSession(request: FastifyRequest, reply: FastifyReply) {
  if (request.portalSession) return;
  return sendPortalMessage(request, reply, {
    status: 401,
    title: 'Portal session needed',
    message:
      'This page needs a portal session. Open the portal link you were given; if it was used or has expired, ask the service for a new one.',
  });
}

/** @internal The portal session of a request behind {@link requirePortalSession}. */
export function portalSessionOf(request: FastifyRequest): PortalSession {
  const session = request.portalSession;
  if (!session) throw new Error('A portal page ran without requirePortalSession.');
  return session;
}

// The codes of a subscriber's change that conflicts with the state: retrying a delivery that
// was delivered, or sending a test to a disabled endpoint.
const portalConflicts: ReadonlySet<string> = new Set(['endpoint_disabled', 'delivery_delivered']);

/**
 * @internal Runs a portal action; a refusal it throws (bad input, an id that is not the
 * subscriber's, a conflict) is a page with its message and status, never a 500.
 */
export async function withPortalErrors(
  request: FastifyRequest,
  reply: FastifyReply,
  back: string,
  action: () => Promise<FastifyReply>,
): Promise<FastifyReply> {
  try {
    return await action();
  } catch (error) {
    const refusal = pageRefusalOf(error, portalConflicts);
    if (refusal === undefined) throw error;
    const { status, message } = refusal;
    const title = status === 404 ? 'Not found' : 'That did not work';
    return sendPortalMessage(request, reply, { status, title, message, back });
  }
}

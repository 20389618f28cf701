import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { type Capability, hasCapability, roleCapabilities } from '../capabilities.js';
import type { SignedInUser } from '../users/sessions.js';
import { renderDocument } from './layout.js';
import { type NavigationItem, navigationFor } from './navigation.js';
import { PORTAL_COOKIE, SECURE_PORTAL_COOKIE } from './portal/portal-session-cookie.js';
import { safeNext } from './safe-next.js';
import { defineTemplate } from './templates.js';
import { csrfToken } from './web-sessions.js';

/** What a page handler knows about the person signed in. */
export interface PageContext {
  /** The signed-in user. */
  user: SignedInUser;
  /** `ses_…`: the session's stable id (not a credential). */
  sessionId: string;
  /** The capabilities of the user's role (the same matrix as `/api`). */
  capabilities: ReadonlySet<Capability>;
  /** A CSRF token of this session: put it in every form as `<input type="hidden" name="_csrf">`. */
  csrfToken: string;
  /** The navigation entries the user may see. */
  navigation: readonly NavigationItem[];
}

/**
 * The signed-in person of a page request, their capabilities and a CSRF token. Call it in a
 * handler behind {@link requireSignedIn} or {@link requirePageCapability}; it throws otherwise.
 *
 * @example
 * ```ts
 * app.get('/users', { onRequest: requirePageCapability('users.manage') }, async (request, reply) => {
 *   const { user, csrfToken } = pageContext(request);
 *   return sendPage(request, reply, { title: 'Users', body: usersTemplate.render({ csrfToken }) });
 * });
 * ```
 */
export function pageContext(request: FastifyRequest): PageContext {
  const session = request.webSession;
  if (!session) throw new Error('pageContext() needs requireSignedIn or requirePageCapability.');
  return {
    user: session.user,
    sessionId: session.id,
    capabilities: roleCapabilities[session.user.role],
    csrfToken: csrfToken(session),
    navigation: navigationFor(session.user.role),
  };
}

/** Options of {@link sendPage}. */
export interface SendPageOptions {
  /** The page's title (the document's title is `<title> · FollowUp`). */
  title: string;
  /** The page's HTML, from a template made with `defineTemplate` (which escapes). */
  body: string;
  /** HTTP status; default 200. */
  status?: number;
  /** A success message about the change just made, kept by the action that made it (the one-time flash). */
  notice?: string | undefined;
}

/**
 * Sends a page: the layout (navigation for the signed-in user, Sign out) around `body`, as
 * `text/html` with `Cache-Control: no-store`.
 */
export function sendPage(
  request: FastifyRequest,
  reply: FastifyReply,
  options: SendPageOptions,
): FastifyReply {
  const session = request.webSession;
  const context = session ? pageContext(request) : undefined;
  const html = renderDocument({
    title: options.title,
    body: options.body,
    notice: options.notice,
    currentPath: request.url.split('?')[0] ?? '/',
    ...(context
      ? {
          signedIn: {
            name: context.user.name,
            email: context.user.email,
            role: context.user.role,
            navigation: context.navigation,
            csrfToken: context.csrfToken,
          },
        }
      : {}),
  });
  return reply
    .status(options.status ?? 200)
    .header('Content-Type', 'text/html; charset=utf-8')
    .header('Cache-Control', 'no-store')
    .send(html);
}

const forbiddenTemplate = defineTemplate<{ capability: string; role: string }>(`
<h1>Not allowed</h1>
<p>Your role, <%= it.role %>, does not have the capability <code><%= it.capability %></code> that this
page needs. Ask an administrator if you need it.</p>
<p><a href="/">Back to the start page</a></p>
`);

const tooManyTemplate = defineTemplate<{ minutes: number }>(`
<h1>Too many attempts</h1>
<p>There were too many failed sign-in attempts. Try again in <%= it.minutes %> minute<%= it.minutes === 1 ? '' : 's' %>.</p>
<p><a href="/signin">Back to sign in</a></p>
`);

/** Sends the 403 page: the role lacks the capability the page needs. */
export function sendForbiddenPage(
  request: FastifyRequest,
  reply: FastifyReply,
  capability: Capability,
): FastifyReply {
  const role = request.webSession?.user.role ?? 'none';
  return sendPage(request, reply, {
    title: 'Not allowed',
    status: 403,
    body: forbiddenTemplate.render({ capability, role }),
  });
}

/** Sends the 429 page with `Retry-After`. */
export function sendTooManyRequestsPage(
  request: FastifyRequest,
  reply: FastifyReply,
  retryAfterSeconds: number,
): FastifyReply {
  reply.header('Retry-After', String(retryAfterSeconds));
  return sendPage(request, reply, {
    title: 'Too many attempts',
    status: 429,
    body: tooManyTemplate.render({ minutes: Math.max(1, Math.ceil(retryAfterSeconds / 60)) }),
  });
}

// The subscriber portal's session cookies, as portal-session-cookie.ts names them.
const PORTAL_COOKIES = [PORTAL_COOKIE, SECURE_PORTAL_COOKIE];

const portalOnlyTemplate = defineTemplate<{ signIn: string }>(`
<h1>Not allowed</h1>
<p>This browser holds a subscriber portal session, which opens the portal only, not the
console. <a href="/portal/endpoints">Back to the portal</a>, or
<a href="<%= it.signIn %>">sign in</a> with a console account.</p>
`);

function redirectToSignIn(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  // Back to the page afterwards; a form's target (POST) cannot be gone back to, so: the start.
  const path = request.method === 'GET' ? request.url : '/';
  const next = safeNext(path);
  const location = next === '/' ? '/signin' : `/signin?next=${encodeURIComponent(next)}`;
  // A portal session is no way into the console: 403, with the way to sign in offered.
  const cookies = (request as { cookies?: Record<string, string | undefined> }).cookies ?? {};
  if (PORTAL_COOKIES.some((name) => cookies[name])) {
    return sendPage(request, reply, {
      title: 'Not allowed',
      status: 403,
      body: portalOnlyTemplate.render({ signIn: location }),
    });
  }
  return reply.header('Cache-Control', 'no-store').redirect(location, 303);
}

/**
 * The `onRequest` hook of a page for anyone signed in: without a valid session the browser is
 * sent to `/signin` (303), which brings it back afterwards.
 */
export const requireSignedIn: onRequestAsyncHookHandler = async function requireSignedIn(
  request,
  reply,
) {
  if (!request.webSession) return redirectToSignIn(request, reply);
};

/**
 * The `onRequest` hook of a page that needs a capability: signed out → `/signin`; signed in
 * without the capability → the 403 page. The same capability matrix as `/api`.
 *
 * @example
 * ```ts
 * app.get('/audit-log', { onRequest: requirePageCapability('audit.read') }, handler);
 * ```
 */
export function requirePageCapability(capability: Capability): onRequestAsyncHookHandler {
  return async function requirePage(request, reply) {
    const session = request.webSession;
    if (!session) return redirectToSignIn(request, reply);
    if (!hasCapability(session.user.role, capability)) {
      return sendForbiddenPage(request, reply, capability);
    }
  };
}

/**
 * The public URL of the server: `--public-url` when given, otherwise the origin the request came
 * to (as Fastify sees it, trusting a proxy only with `--trust-proxy`). Sign-in links use it.
 */
export function publicUrlOf(request: FastifyRequest, configured: string | undefined): string {
  return configured ?? `${request.protocol}://${request.host}`;
}

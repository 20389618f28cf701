// What a person gets for a console URL no route answers: a page in the layout (404, or 405 when
// the path exists for another method), not the API's problem+json. Which requests are a
// person's is decided by the path and then `Accept`:
//
// - under `/api` (and `/api` itself): always problem+json, whatever `Accept` says: that is the
//   API's contract;
// - anywhere else, the console's namespace but also where scripts probe (`/healthz`,
//   `/.well-known/…`): the page when `Accept` names `text/html` (every browser's navigation
//   does), problem+json otherwise (curl's `*/*`, an SDK's `application/json`).
//
// These answers run in the root context, outside the web application's: the session is loaded
// here, and the page carries the same Content-Security-Policy and security headers as the
// console's own pages (`consoleHelmetOptions`).
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { SessionStore } from '../users/sessions.js';
import { sendPage } from './page-context.js';
import { defineTemplate } from './templates.js';
import { loadWebSession } from './web-sessions.js';

/** @internal The methods a console path may answer, in the order `Allow` lists them. */
const METHODS: readonly HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * @internal Answers a request no route matched with a console page, or answers `undefined` when
 * the request is not a person's (an API path, or an `Accept` without `text/html`): the caller
 * then answers problem+json.
 */
export type ConsoleFallback = (
  request: FastifyRequest,
  reply: FastifyReply,
) => Promise<FastifyReply> | undefined;

/** @internal The path of a request, without its query string. */
function pathOf(request: FastifyRequest): string {
  return request.url.split('?')[0] ?? '/';
}

/**
 * @internal Whether a request no route matched gets a console page: not under `/api`, and with
 * `Accept` naming `text/html` (or `application/xhtml+xml`).
 */
export function wantsConsolePage(path: string, accept: string | undefined): boolean {
  if (path === '/api' || path.startsWith('/api/')) return false;
  return /(^|,)\s*(text\/html|application\/xhtml\+xml)\s*(;|,|$)/i.test(accept ?? '');
}

const notFoundTemplate = defineTemplate<{ path: string }>(`
<h1>Page not found</h1>
<p>There is no page at <code><%= it.path %></code>. The address may be mistyped, or the page moved.</p>
<p><a href="/">Go to the start page</a></p>
`);

const methodNotAllowedTemplate = defineTemplate<{ path: string; allowed: string }>(`
<h1>This page cannot be used that way</h1>
<p><code><%= it.path %></code> answers <%= it.allowed %> only: a form's button, not a link or a typed address, does what it does.</p>
<p><a href="/">Go to the start page</a></p>
`);

/**
 * @internal The console's fallback: the 404 page for a console URL that matches no route, the
 * 405 page (with `Allow`) for one that matches a route of another method, each in the layout
 * (navigation when signed in) with a way home.
 */
export function consoleFallback(options: {
  app: FastifyInstance;
  sessions: SessionStore;
  securityHeaders: Readonly<Record<string, string>>;
}): ConsoleFallback {
  const { app, sessions, securityHeaders } = options;
  return (request, reply) => {
    const path = pathOf(request);
    if (!wantsConsolePage(path, request.headers.accept)) return undefined;
    return (async () => {
      await loadWebSession(sessions, request, reply);
      reply.headers(securityHeaders);
      const allowed = METHODS.filter(
        (method) => method !== request.method && app.findRoute({ method, url: path }) !== null,
      );
      // A path shown in the page is our own text to escape, never a link.
      const shown = path.length > 200 ? `${path.slice(0, 200)}…` : path;
      if (allowed.length > 0) {
        reply.header('Allow', allowed.join(', '));
        return sendPage(request, reply, {
          title: 'Method not allowed',
          status: 405,
          body: methodNotAllowedTemplate.render({ path: shown, allowed: allowed.join(', ') }),
        });
      }
      return sendPage(request, reply, {
        title: 'Page not found',
        status: 404,
        body: notFoundTemplate.render({ path: shown }),
      });
    })();
  };
}

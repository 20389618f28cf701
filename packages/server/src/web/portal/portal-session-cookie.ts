import CsrfTokens from '@fastify/csrf';
import { CSRF_TOKEN_HEADER } from '@followup/sdk';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.js';
import type { PortalSession } from '../../portal/portal-sessions.js';
import { resolvePortalSession } from '../../portal/portal-sessions.js';
import { ProblemError } from '../../problem-error.js';
import type { Queryable } from '../../storage/database.js';
import { CSRF_FIELD, UNSAFE_METHODS } from '../web-sessions.js';

// The portal session's cookie and CSRF tokens: the console's scheme (src/web/README.md) with a
// cookie of its own, so that a portal session is never a console session and the reverse.

/** @internal The portal session cookie's name over plain HTTP (development on loopback). */
export const PORTAL_COOKIE = 'followup_portal';
/**
 * @internal Its name over HTTPS: `__Host-` makes browsers require `Secure`, `Path=/` and no
 * `Domain`, as for the console's session cookie.
 */
export const SECURE_PORTAL_COOKIE = '__Host-followup_portal';

const csrfTokens = CsrfTokens();

/** @internal The portal cookie's name for this request. */
export function portalCookieName(request: FastifyRequest): string {
  return request.protocol === 'https' ? SECURE_PORTAL_COOKIE : PORTAL_COOKIE;
}

function cookieOptions(request: FastifyRequest, maxAgeSeconds?: number) {
  return {
    httpOnly: true,
    sameSite: 'lax' as const,
    path: '/',
    secure: request.protocol === 'https',
    ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
  };
}

/** @internal Sets the portal cookie until the session's end. */
export function setPortalCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  session: { cookieValue: string; expiresAt: string },
  now: number,
): void {
  const maxAge = Math.max(0, Math.floor((Date.parse(session.expiresAt) - now) / 1000));
  reply.setCookie(portalCookieName(request), session.cookieValue, cookieOptions(request, maxAge));
}

/** @internal Tells the browser to forget the portal cookie. */
export function clearPortalCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(portalCookieName(request), cookieOptions(request));
}

/** @internal The value of the request's portal cookie, if it sent one. */
export function portalCookieValue(request: FastifyRequest): string | undefined {
  return request.cookies[portalCookieName(request)];
}

/** @internal The request's portal session, or `undefined`. */
export function loadPortalSession(
  queryable: Queryable,
  request: FastifyRequest,
  clock: Clock,
): Promise<PortalSession | undefined> {
  return resolvePortalSession(queryable, portalCookieValue(request), clock);
}

/** @internal A new CSRF token of a portal session (each render may make a new one). */
export function portalCsrfToken(session: PortalSession): string {
  return csrfTokens.create(session.csrfSecret);
}

/**
 * @internal Refuses (403 `csrf_invalid`) an unsafe request of a portal session without the
 * session's CSRF token in `_csrf` or `X-CSRF-Token` (the web application has already refused one
 * that is not same-origin).
 */
export function checkPortalCsrf(request: FastifyRequest, session: PortalSession): void {
  if (!UNSAFE_METHODS.has(request.method)) return;
  const header = request.headers[CSRF_TOKEN_HEADER];
  const body = request.body as Record<string, unknown> | undefined | null;
  const field = body && typeof body === 'object' ? body[CSRF_FIELD] : undefined;
  const token = typeof header === 'string' ? header : typeof field === 'string' ? field : '';
  if (token === '' || token.length > 512 || !csrfTokens.verify(session.csrfSecret, token)) {
    throw new ProblemError({
      code: 'csrf_invalid',
      detail: `The X-CSRF-Token header or the ${CSRF_FIELD} field is missing or wrong.`,
    });
  }
}

import fastifyCookie from '@fastify/cookie';
import CsrfTokens from '@fastify/csrf';
import { CSRF_TOKEN_HEADER } from '@followup/sdk';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '../problem-error.js';
import type { ActiveSession, SessionStore } from '../users/sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The session of the request's session cookie, once {@link loadWebSession} ran and found a
     * valid one; otherwise `null`.
     */
    webSession: ActiveSession | null;
  }
}

/** The session cookie's name over plain HTTP (development on a loopback address). */
export const SESSION_COOKIE = 'followup_session';
/**
 * The session cookie's name over HTTPS (directly, or behind a proxy trusted with
 * `--trust-proxy`): the `__Host-` prefix makes browsers require `Secure`, `Path=/` and no
 * `Domain`, so no sibling subdomain can set or shadow it.
 */
export const SECURE_SESSION_COOKIE = '__Host-followup_session';

/** The header that carries the CSRF token of a `fetch` call. */
export const CSRF_HEADER = 'X-CSRF-Token';
/** The form field that carries the CSRF token of an HTML form. */
export const CSRF_FIELD = '_csrf';

/** @internal The methods a web session's CSRF check refuses without a token (the unsafe ones). */
export const UNSAFE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

// Tokens from @fastify/csrf (the library under @fastify/csrf-protection): a salted HMAC of the
// session's own secret, which lives server-side in the session row, so a token is good for one
// session only and dies with it.
const csrfTokens = CsrfTokens();

/** @internal Whether the request came over HTTPS (as Fastify sees it, trusting the proxy or not). */
function isSecure(request: FastifyRequest): boolean {
  return request.protocol === 'https';
}

/** @internal The session cookie's name for this request. */
export function sessionCookieName(request: FastifyRequest): string {
  return isSecure(request) ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

/** @internal Sets the session cookie: HttpOnly, SameSite=Lax, Path=/, Secure over HTTPS. */
export function setSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  value: string,
): void {
  reply.setCookie(sessionCookieName(request), value, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: isSecure(request),
  });
}

/** @internal Tells the browser to forget the session cookie. */
export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(sessionCookieName(request), {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: isSecure(request),
  });
}

/** @internal The value of the request's session cookie, if it sent one. */
export function sessionCookieValue(request: FastifyRequest): string | undefined {
  return request.cookies[sessionCookieName(request)];
}

/**
 * @internal Resolves the request's session cookie into `request.webSession` (`null` without a
 * valid one), and sends the rotated cookie when the session's id changed.
 */
export async function loadWebSession(
  sessions: SessionStore,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<ActiveSession | null> {
  const session = (await sessions.resolve(sessionCookieValue(request))) ?? null;
  request.webSession = session;
  if (session?.rotatedCookieValue) setSessionCookie(request, reply, session.rotatedCookieValue);
  return session;
}

/** @internal A new CSRF token for the request's session (each render may make a new one). */
export function csrfToken(session: ActiveSession): string {
  return csrfTokens.create(session.csrfSecret);
}

function csrfInvalid(detail: string): ProblemError {
  return new ProblemError({ code: 'csrf_invalid', detail });
}

/** @internal The origins a same-origin request of this server may name in `Origin`. */
function allowedOrigins(request: FastifyRequest, publicOrigin: string | undefined): string[] {
  const own = `${request.protocol}://${request.host}`;
  return publicOrigin ? [own, publicOrigin] : [own];
}

/**
 * @internal Refuses (403 `csrf_invalid`) an unsafe request (POST, PUT, PATCH, DELETE) that is
 * not same-origin: `Origin` must be this server's (its own or its public origin), or, where the
 * browser sends no or a `null` Origin, `Sec-Fetch-Site` must be `same-origin`.
 */
export function checkSameOrigin(request: FastifyRequest, publicOrigin: string | undefined): void {
  if (!UNSAFE_METHODS.has(request.method)) return;
  const origin = request.headers.origin;
  const sameOrigin =
    origin === undefined || origin === 'null'
      ? request.headers['sec-fetch-site'] === 'same-origin'
      : allowedOrigins(request, publicOrigin).includes(origin);
  if (!sameOrigin)
    throw csrfInvalid('An unsafe request must come from this site (Origin or Sec-Fetch-Site).');
}

/**
 * @internal Refuses (403 `csrf_invalid`) an unsafe request authenticated by the session cookie
 * unless it is same-origin ({@link checkSameOrigin}) and carries the session's CSRF token in
 * `X-CSRF-Token` or, for an HTML form once its body is read, in the `_csrf` field.
 */
export function checkCsrf(
  request: FastifyRequest,
  session: ActiveSession,
  publicOrigin: string | undefined,
): void {
  if (!UNSAFE_METHODS.has(request.method)) return;
  checkSameOrigin(request, publicOrigin);
  const header = request.headers[CSRF_TOKEN_HEADER];
  const body = request.body as Record<string, unknown> | undefined | null;
  const field = body && typeof body === 'object' ? body[CSRF_FIELD] : undefined;
  const token = typeof header === 'string' ? header : typeof field === 'string' ? field : '';
  if (token === '' || token.length > 512 || !csrfTokens.verify(session.csrfSecret, token)) {
    throw csrfInvalid(`The ${CSRF_HEADER} header or the ${CSRF_FIELD} field is missing or wrong.`);
  }
}

/**
 * @internal Installs what sessions need on every route: cookie parsing (`@fastify/cookie`) and
 * `request.webSession`.
 */
export function installWebSessions(app: FastifyInstance): void {
  app.register(fastifyCookie);
  app.decorateRequest('webSession', null);
}

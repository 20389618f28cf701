import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestAsyncHookHandler,
} from 'fastify';
import { type Capability, hasCapability } from '../capabilities.js';
import { ProblemError } from '../problem-error.js';
import type { AccountStore } from '../tokens/account-store.js';
import type { ServiceAccount, TokenFailureCode } from '../tokens/account-types.js';
import { type Role, roles } from '../tokens/role.js';
import type { SessionStore, SignedInUser } from '../users/sessions.js';
import {
  checkCsrf,
  loadWebSession,
  sessionCookieValue,
  UNSAFE_METHODS,
} from '../web/web-sessions.js';
import type { AuthFailureThrottle } from './address-limits.js';
import { readAuthorizationHeader } from './authorization-header.js';
import { type RateLimiter, rateLimited, rateLimitHeaders } from './rate-limit.js';
import { type AnswersOf, answering } from './route-problem-codes.js';

/**
 * Who is calling: the service account behind the request's bearer token, or the person whose
 * web session cookie came with it (only when there is no `Authorization` header).
 */
export interface Principal {
  /** Who acts, as the audit log records it. */
  actor: {
    /** A service account (bearer token) or a user (session cookie). */
    type: 'service_account' | 'user';
    /** The account's `sa_…` or the user's `usr_…`. */
    id: string;
  };
  /** The role that gives the capabilities: the account's or the user's. */
  role: Role;
  /** The token's service account; `null` for a session. */
  account: ServiceAccount | null;
  /** The token's `tok_…` id; `null` for a session. */
  tokenId: string | null;
  /** The signed-in user of a session; `null` for a token. */
  user: SignedInUser | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller, once a capability check has authenticated the request; otherwise `null`. */
    principal: Principal | null;
  }
  interface FastifyInstance {
    /**
     * The `onRequest` hook of a route that needs a capability: bearer authentication (401
     * codes), the per-token rate limit (429), then the role's capability (403).
     *
     * @example
     * ```ts
     * app.get('/api/reports', { onRequest: app.requireCapability('audit.read') }, handler);
     * ```
     */
    requireCapability: RequireCapability;
  }
}

/** Why a request's credentials were refused: the token's verdict, or a header not `Bearer <token>`. */
type AuthenticationFailureCode = TokenFailureCode | 'token_malformed';

const details: Record<AuthenticationFailureCode, string> = {
  token_missing: 'This endpoint needs an Authorization: Bearer <token> header.',
  token_malformed:
    'The Authorization header must use the Bearer scheme: Authorization: Bearer <token>.',
  token_invalid: 'The bearer token is not valid.',
  token_expired: 'The bearer token has expired. Issue a new one.',
  token_revoked: 'The bearer token has been revoked. Issue a new one.',
};

// RFC 6750 section 3.1: which scheme, and what was wrong with the request or its token.
const challenges: Record<AuthenticationFailureCode, string> = {
  token_missing: 'Bearer realm="followup"',
  token_malformed: 'Bearer realm="followup", error="invalid_request"',
  token_invalid: 'Bearer realm="followup", error="invalid_token"',
  token_expired: 'Bearer realm="followup", error="invalid_token"',
  token_revoked: 'Bearer realm="followup", error="invalid_token"',
};

function unauthorized(code: AuthenticationFailureCode): ProblemError {
  return new ProblemError({
    code,
    detail: details[code],
    headers: { 'WWW-Authenticate': challenges[code] },
  });
}

/**
 * Makes the `onRequest` hook that lets a request through only with a capability (or, without
 * one, any authenticated caller). It runs before the body is read or validated: an
 * unauthenticated caller learns nothing about its input, and costs no parsing.
 */
export type RequireCapability = (capability?: Capability) => onRequestAsyncHookHandler;

/**
 * @internal Installs bearer authentication: `request.principal`, and returns the helper that
 * routes use as their `onRequest` hook. Each token is then rate-limited (429 `rate_limited` with
 * `Retry-After`). A missing, malformed (not `Bearer <token>`), invalid, expired or revoked token is
 * a 401 with its code (never a 403); a valid token whose role lacks the capability is a 403 `forbidden`.
 */
export function installAuthentication(
  app: FastifyInstance,
  accounts: AccountStore,
  rateLimiter?: RateLimiter,
  web?: { sessions: SessionStore; publicOrigin: string | undefined },
  authFailures?: AuthFailureThrottle,
): RequireCapability {
  app.decorateRequest('principal', null);

  // The Authorization header alone decides when present (a bad token is a 401 even with a good
  // cookie); without it a valid session cookie authenticates, with CSRF checks on unsafe methods.
  async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<Principal> {
    if (request.headers.authorization === undefined && web && sessionCookieValue(request)) {
      const session = await loadWebSession(web.sessions, request, reply);
      if (session) {
        checkCsrf(request, session, web.publicOrigin);
        return {
          actor: { type: 'user', id: session.user.id },
          role: session.user.role,
          account: null,
          tokenId: null,
          user: session.user,
        };
      }
    }
    const presented = readAuthorizationHeader(request.headers.authorization);
    // Refused before any lookup: a header without the scheme costs no database work.
    if (presented.kind === 'malformed') throw unauthorized('token_malformed');
    const token = presented.kind === 'bearer' ? presented.token : undefined;
    // An address that failed too often is refused before its token costs a lookup.
    if (token !== undefined) authFailures?.check(request);
    const result = await accounts.verifyToken(token);
    if (!result.ok) {
      if (token !== undefined) authFailures?.record(request);
      throw unauthorized(result.code);
    }
    return {
      actor: { type: 'service_account', id: result.account.id },
      role: result.account.role,
      account: result.account,
      tokenId: result.tokenId,
      user: null,
    };
  }

  // What the hook can answer, for the OpenAPI document of each route it guards: the token codes,
  // the rate limits when configured, the capability check, and a web session's CSRF check on
  // unsafe methods.
  const answers =
    (capability: Capability | undefined): AnswersOf =>
    (method) => [
      'token_missing',
      'token_malformed',
      'token_invalid',
      'token_expired',
      'token_revoked',
      ...(rateLimiter || authFailures ? (['rate_limited'] as const) : []),
      // A capability every role holds (contacts.read) is never refused.
      ...(capability !== undefined && roles.some((role) => !hasCapability(role, capability))
        ? (['forbidden'] as const)
        : []),
      ...(web && UNSAFE_METHODS.has(method) ? (['csrf_invalid'] as const) : []),
    ];

  return (capability) =>
    answering(async function requireCapability(request: FastifyRequest, reply: FastifyReply) {
      // Answers about an account's data (errors included) are never cached, nor sniffed.
      reply.header('cache-control', 'no-store').header('x-content-type-options', 'nosniff');
      const principal = await authenticate(request, reply);
      request.principal = principal;
      if (rateLimiter) {
        const key = principal.tokenId ?? principal.actor.id;
        const decision = rateLimiter.take(key);
        const headers = rateLimitHeaders('per-token', rateLimiter, key);
        if (!decision.allowed) {
          throw rateLimited('Too many requests with these credentials.', decision, headers);
        }
        reply.headers(headers);
      }
      if (capability !== undefined && !hasCapability(principal.role, capability)) {
        throw new ProblemError({
          code: 'forbidden',
          detail: `The role ${principal.role} does not have the capability ${capability}.`,
        });
      }
    }, answers(capability));
}

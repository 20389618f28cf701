import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { type Capability, hasCapability } from '../capabilities.js';
import type { AccountStore, ServiceAccount, TokenFailureCode } from '../tokens/account-store.js';
import { ProblemError } from './problem.js';
import type { RateLimiter } from './rate-limit.js';

/** Who is calling: the service account behind the request's bearer token. */
export interface Principal {
  /** The token's service account. */
  account: ServiceAccount;
  /** The token's `tok_…` id. */
  tokenId: string;
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

const details: Record<TokenFailureCode, string> = {
  token_missing: 'This endpoint needs an Authorization: Bearer <token> header.',
  token_invalid: 'The bearer token is not valid.',
  token_expired: 'The bearer token has expired. Issue a new one.',
  token_revoked: 'The bearer token has been revoked. Issue a new one.',
};

/** @internal Reads the token of an `Authorization: Bearer <token>` header. */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer[ \t]+(\S*)[ \t]*$/i.exec(header.trim());
  return match?.[1] || undefined;
}

function unauthorized(code: TokenFailureCode): ProblemError {
  // RFC 6750: say which scheme, and whether the token presented was bad.
  const challenge =
    code === 'token_missing'
      ? 'Bearer realm="followup"'
      : 'Bearer realm="followup", error="invalid_token"';
  return new ProblemError({
    status: 401,
    code,
    detail: details[code],
    headers: { 'WWW-Authenticate': challenge },
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
 * `Retry-After`). A missing, invalid, expired or revoked token is a 401 with
 * its code (never a 403); a valid token whose role lacks the capability is a 403 `forbidden`.
 */
export function installAuthentication(
  app: FastifyInstance,
  accounts: AccountStore,
  rateLimiter?: RateLimiter,
): RequireCapability {
  app.decorateRequest('principal', null);

  async function authenticate(request: FastifyRequest): Promise<Principal> {
    const result = await accounts.verifyToken(bearerToken(request.headers.authorization));
    if (!result.ok) throw unauthorized(result.code);
    return { account: result.account, tokenId: result.tokenId };
  }

  return (capability) =>
    async function requireCapability(request, reply) {
      // Answers about an account's data (errors included) are never cached, nor sniffed.
      reply.header('cache-control', 'no-store').header('x-content-type-options', 'nosniff');
      const principal = await authenticate(request);
      request.principal = principal;
      const decision = rateLimiter?.take(principal.tokenId);
      if (decision && !decision.allowed) {
        throw new ProblemError({
          status: 429,
          code: 'rate_limited',
          detail: `Too many requests with this token. Retry in ${decision.retryAfterSeconds} s.`,
          headers: { 'Retry-After': String(decision.retryAfterSeconds) },
        });
      }
      if (capability !== undefined && !hasCapability(principal.account.role, capability)) {
        throw new ProblemError({
          status: 403,
          code: 'forbidden',
          detail: `The role ${principal.account.role} does not have the capability ${capability}.`,
        });
      }
    };
}

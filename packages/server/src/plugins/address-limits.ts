import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import ipaddr from 'ipaddr.js';
import { boundedMemo } from '../bounded-memo.js';
import type { Clock } from '../clock.js';
import {
  createRateLimiter,
  type RateLimiter,
  type RateLimitOptions,
  rateLimited,
  rateLimitHeaders,
} from './rate-limit.js';
import { answering } from './route-problem-codes.js';

/**
 * The default budget of each client address on the routes that need no token (the inbox and
 * EHR webhooks, sign-in): bursts of 1200, refilled over a minute (20 a second on average). A
 * vendor or a mail relay delivering from one address stays well under it.
 */
export const DEFAULT_ADDRESS_RATE_LIMIT: RateLimitOptions = { limit: 1200, windowSeconds: 60 };

/**
 * The default budget of failed authentications (401 for a token presented but not accepted) of
 * each client address: 30, refilled over a minute. Past it, requests with a token are answered
 * 429 before the token is looked up.
 */
export const DEFAULT_AUTH_FAILURE_LIMIT: RateLimitOptions = { limit: 30, windowSeconds: 60 };

// The same few addresses ask again and again: remembered, up to 4,096 of them, instead of parsed
// on every request.
const rememberedAddressKey = boundedMemo(addressKeyOf, 4_096);

/**
 * @internal The key a client address is counted under: an IPv4 address as it is (an
 * IPv4-mapped IPv6 address as its IPv4 address), an IPv6 address by its /64 prefix, since one
 * host usually holds a whole /64.
 */
export function clientAddressKey(ip: string): string {
  return rememberedAddressKey(ip);
}

function addressKeyOf(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((part) => part.toString(16)).join(':')}::/64`;
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The `onRequest` hook of a route anyone may call (no token): counts the request against
     * its client address's budget and answers 429 `rate_limited` past it, before any database
     * work. A no-op when per-address limits are off.
     *
     * @example
     * ```ts
     * app.post('/signin', { onRequest: app.limitByAddress }, handler);
     * ```
     */
    limitByAddress: onRequestAsyncHookHandler;
  }
}

/** @internal The failed-authentication throttle, per client address. */
export interface AuthFailureThrottle {
  /** Throws 429 `rate_limited` when the request's address has no failures left. */
  check(request: FastifyRequest): void;
  /** Counts one failed authentication against the request's address. */
  record(request: FastifyRequest): void;
}

/**
 * @internal Installs the per-address limits: `app.limitByAddress` for routes anyone may call,
 * and returns the failed-authentication throttle for the bearer authentication.
 */
export function installAddressLimits(
  app: FastifyInstance,
  options: {
    clock: Clock;
    requests: RateLimitOptions | false;
    authFailures: RateLimitOptions | false;
  },
): AuthFailureThrottle | undefined {
  const requests: RateLimiter | undefined =
    options.requests === false ? undefined : createRateLimiter(options.requests, options.clock);
  const limitByAddress = answering(
    async function limitByAddress(request: FastifyRequest) {
      if (!requests) return;
      const key = clientAddressKey(request.ip);
      const decision = requests.take(key);
      if (!decision.allowed) {
        throw rateLimited(
          'Too many requests from this address.',
          decision,
          rateLimitHeaders('per-address', requests, key),
        );
      }
    },
    () => (requests ? ['rate_limited'] : []),
  );
  app.decorate('limitByAddress', limitByAddress as onRequestAsyncHookHandler);
  if (options.authFailures === false) return undefined;
  const failures = createRateLimiter(options.authFailures, options.clock);
  return {
    check(request) {
      const key = clientAddressKey(request.ip);
      const decision = failures.peek(key);
      if (!decision.allowed) {
        throw rateLimited(
          'Too many failed authentications from this address.',
          decision,
          rateLimitHeaders('auth-failures', failures, key),
        );
      }
    },
    record(request) {
      failures.take(clientAddressKey(request.ip));
    },
  };
}

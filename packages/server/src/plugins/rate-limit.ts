import type { Clock } from '../clock.js';
import { ProblemError } from '../problem-error.js';

/** How many requests one token may make: a bucket of `limit`, refilled over `windowSeconds`. */
export interface RateLimitOptions {
  /** Requests a token may make in a burst, and per window on average. */
  limit: number;
  /** The window, in seconds, over which the bucket refills completely. */
  windowSeconds: number;
}

/** The default: 600 requests a minute per token (10 a second on average, bursts of 600). */
export const DEFAULT_RATE_LIMIT: RateLimitOptions = { limit: 600, windowSeconds: 60 };

/** What {@link RateLimiter.take} decided. */
export type RateLimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** @internal Where a key's bucket stands, for the `RateLimit` response header. */
export interface RateLimitStatus {
  /** Whole requests left now. */
  remaining: number;
  /** Seconds until the bucket is full again (0 when it is). */
  resetSeconds: number;
}

/** @internal A token bucket per key (a token's id, a client address), in this process's memory. */
export interface RateLimiter {
  /** The options it was made with. */
  readonly options: RateLimitOptions;
  /** Takes one request from the key's bucket. */
  take(key: string): RateLimitDecision;
  /** Whether the key's bucket has a request left, without taking it. */
  peek(key: string): RateLimitDecision;
  /** Where the key's bucket stands now. */
  status(key: string): RateLimitStatus;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

// Past this many keys, full buckets (keys idle for a whole window) are forgotten.
const pruneThreshold = 10_000;

/**
 * @internal Creates the per-token rate limiter. Each key's bucket holds up to `limit` requests
 * and refills continuously at `limit / windowSeconds` a second, by the injected clock. A refused
 * request says how many whole seconds until one more is allowed (the `Retry-After` value).
 */
export function createRateLimiter(options: RateLimitOptions, clock: Clock): RateLimiter {
  const { limit, windowSeconds } = options;
  if (!(Number.isSafeInteger(limit) && limit > 0 && windowSeconds > 0)) {
    throw new RangeError('A rate limit needs a positive whole limit and a positive window.');
  }
  const perMillisecond = limit / (windowSeconds * 1000);
  const buckets = new Map<string, Bucket>();

  function refill(bucket: Bucket, now: number): void {
    const elapsed = Math.max(0, now - bucket.updatedAt);
    bucket.tokens = Math.min(limit, bucket.tokens + elapsed * perMillisecond);
    bucket.updatedAt = now;
  }

  function prune(now: number): void {
    for (const [key, bucket] of buckets) {
      refill(bucket, now);
      if (bucket.tokens >= limit) buckets.delete(key);
    }
  }

  function refused(bucket: Bucket): RateLimitDecision {
    const waitMilliseconds = (1 - bucket.tokens) / perMillisecond;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMilliseconds / 1000)) };
  }

  return {
    options: { limit, windowSeconds },
    peek(key) {
      const bucket = buckets.get(key);
      if (!bucket) return { allowed: true };
      refill(bucket, clock.now());
      return bucket.tokens >= 1 ? { allowed: true } : refused(bucket);
    },
    status(key) {
      const bucket = buckets.get(key);
      if (!bucket) return { remaining: limit, resetSeconds: 0 };
      refill(bucket, clock.now());
      return {
        remaining: Math.floor(bucket.tokens),
        resetSeconds: Math.ceil((limit - bucket.tokens) / perMillisecond / 1000),
      };
    },
    take(key) {
      const now = clock.now();
      let bucket = buckets.get(key);
      if (!bucket) {
        if (buckets.size >= pruneThreshold) prune(now);
        bucket = { tokens: limit, updatedAt: now };
        buckets.set(key, bucket);
      } else {
        refill(bucket, now);
      }
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return { allowed: true };
      }
      return refused(bucket);
    },
  };
}

/**
 * @internal The IETF `RateLimit-Policy` and `RateLimit` response headers
 * (draft-ietf-httpapi-ratelimit-headers) of a named policy: the quota `q` per window `w`
 * seconds, the requests `r` left and the seconds `t` until the quota is whole again.
 */
export function rateLimitHeaders(
  name: string,
  limiter: RateLimiter,
  key: string,
): Record<string, string> {
  const { limit, windowSeconds } = limiter.options;
  const { remaining, resetSeconds } = limiter.status(key);
  return {
    'RateLimit-Policy': `"${name}";q=${limit};w=${windowSeconds}`,
    RateLimit: `"${name}";r=${remaining};t=${resetSeconds}`,
  };
}

/**
 * @internal The 429 `rate_limited` problem of a refused request, with `Retry-After` and the
 * policy's `RateLimit` headers.
 */
export function rateLimited(
  detail: string,
  decision: { retryAfterSeconds: number },
  headers: Record<string, string>,
): ProblemError {
  return new ProblemError({
    code: 'rate_limited',
    detail: `${detail} Retry in ${decision.retryAfterSeconds} s.`,
    headers: { ...headers, 'Retry-After': String(decision.retryAfterSeconds) },
  });
}

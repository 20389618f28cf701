import type { Clock } from '../clock.js';

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

/** @internal A token bucket per key (a token's id), in this process's memory. */
export interface RateLimiter {
  /** Takes one request from the key's bucket. */
  take(key: string): RateLimitDecision;
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

  return {
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
      const waitMilliseconds = (1 - bucket.tokens) / perMillisecond;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMilliseconds / 1000)) };
    },
  };
}

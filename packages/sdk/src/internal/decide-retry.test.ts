import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideRetry } from './decide-retry.js';
import { MAX_RETRY_AFTER_MS } from './retry-after.js';

const base = { attempt: 1, maxRetries: 2, now: 0, deadlineAt: 600_000, random: () => 0.5 };

describe('decideRetry', () => {
  it('waits what Retry-After asks, at most 60 s, without jitter', () => {
    expect(decideRetry({ ...base, retryAfterMs: 3_000 })).toBe(3_000);
    expect(decideRetry({ ...base, retryAfterMs: 3_600_000 })).toBe(MAX_RETRY_AFTER_MS);
  });

  it('waits a full-jitter backoff without Retry-After', () => {
    expect(decideRetry({ ...base, retryAfterMs: undefined })).toBe(250);
    expect(decideRetry({ ...base, attempt: 2, retryAfterMs: undefined })).toBe(500);
  });

  it('gives up once the retries are used up', () => {
    expect(decideRetry({ ...base, attempt: 3, retryAfterMs: 0 })).toBeUndefined();
    expect(decideRetry({ ...base, maxRetries: 0, retryAfterMs: 0 })).toBeUndefined();
  });

  it('gives up rather than wait into the deadline', () => {
    expect(
      decideRetry({ ...base, now: 10_000, deadlineAt: 13_000, retryAfterMs: 3_000 }),
    ).toBeUndefined();
    expect(decideRetry({ ...base, now: 10_000, deadlineAt: 13_001, retryAfterMs: 3_000 })).toBe(
      3_000,
    );
  });

  it('never returns a wait that is negative, past 60 s or reaching the deadline', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 10 }),
        fc.option(fc.integer({ min: 0, max: 10_000_000 }), { nil: undefined }),
        fc.integer({ min: 0, max: 200_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, maxRetries, retryAfterMs, budget, draw) => {
          const delay = decideRetry({
            attempt,
            maxRetries,
            retryAfterMs,
            now: 1_000,
            deadlineAt: 1_000 + budget,
            random: () => draw,
          });
          if (attempt > maxRetries) expect(delay).toBeUndefined();
          if (delay !== undefined) {
            expect(delay).toBeGreaterThanOrEqual(0);
            expect(delay).toBeLessThanOrEqual(MAX_RETRY_AFTER_MS);
            expect(1_000 + delay).toBeLessThan(1_000 + budget);
          }
        },
      ),
    );
  });
});

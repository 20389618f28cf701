import { DEFAULT_RETRY_DELAYS_SECONDS } from '@followup/server';
import { describe, expect, it } from 'vitest';
import { FAST_RETRY_DELAYS_SECONDS, SERVER_RETRY_DELAYS_SECONDS } from './delivery-schedule.js';

describe('the retry schedule of followup listen', () => {
  it("is the server's, so that a receiver sees the waits it will see in production", () => {
    expect(SERVER_RETRY_DELAYS_SECONDS).toEqual(DEFAULT_RETRY_DELAYS_SECONDS);
  });

  it('--fast-retries keeps the number of retries, each at most 30 s', () => {
    expect(FAST_RETRY_DELAYS_SECONDS).toHaveLength(DEFAULT_RETRY_DELAYS_SECONDS.length);
    expect(Math.max(...FAST_RETRY_DELAYS_SECONDS)).toBeLessThanOrEqual(30);
  });
});

import { describe, expect, it } from 'vitest';
import { attemptOutcome } from './attempt-outcome.js';
import { INSECURE_ENDPOINT_REFUSED, PRIVATE_ADDRESS_REFUSED } from './endpoint-address.js';
import type { DeliveryAttemptResult } from './post-delivery.js';

function result(fields: Partial<DeliveryAttemptResult>): DeliveryAttemptResult {
  return { outcome: 'failed', status: undefined, durationMs: 1, error: undefined, ...fields };
}

describe('attemptOutcome', () => {
  it('names each way an attempt ends as the metrics count it', () => {
    expect(attemptOutcome(result({ outcome: 'delivered', status: 204 }))).toBe('success');
    expect(attemptOutcome(result({ status: 500 }))).toBe('http_error');
    expect(attemptOutcome(result({ status: 301 }))).toBe('http_error');
    expect(attemptOutcome(result({ error: 'timeout' }))).toBe('timeout');
    expect(attemptOutcome(result({ error: PRIVATE_ADDRESS_REFUSED }))).toBe('refused');
    expect(attemptOutcome(result({ error: INSECURE_ENDPOINT_REFUSED }))).toBe('refused');
    expect(attemptOutcome(result({ error: 'invalid_endpoint_url' }))).toBe('refused');
    expect(attemptOutcome(result({ error: 'ECONNREFUSED' }))).toBe('network_error');
    expect(attemptOutcome(result({ error: 'request_failed' }))).toBe('network_error');
  });
});

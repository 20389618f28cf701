import { describe, expect, it } from 'vitest';
import { edgeOptions } from './edge-options.js';
import { UsageError } from './usage.js';

describe('edgeOptions', () => {
  it('reads the limits from flags first, then the environment; 0 turns a rate limit off', () => {
    expect(edgeOptions({}, {})).toEqual({});
    expect(
      edgeOptions(
        { 'rate-limit': '120', 'request-timeout': '20', 'max-connections': '100' },
        {
          RATE_LIMIT: '5',
          ADDRESS_RATE_LIMIT: '0',
          HEADERS_TIMEOUT: '5',
          KEEP_ALIVE_TIMEOUT: '75',
        },
      ),
    ).toEqual({
      rateLimit: { limit: 120, windowSeconds: 60 },
      addressRateLimit: false,
      connectionLimits: {
        headersTimeoutMs: 5000,
        requestTimeoutMs: 20_000,
        keepAliveTimeoutMs: 75_000,
        maxConnections: 100,
      },
    });
  });

  it('refuses what is not a whole number in range, and headers slower than the request', () => {
    for (const values of [
      { 'rate-limit': '1.5' },
      { 'request-timeout': '0' },
      { 'headers-timeout': '9999' },
      { 'max-connections': 'many' },
      { 'headers-timeout': '40' },
    ]) {
      expect(() => edgeOptions(values, {}), JSON.stringify(values)).toThrow(UsageError);
    }
  });
});

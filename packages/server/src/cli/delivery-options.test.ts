import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deliveryOptions, MAX_DELIVERY_CONCURRENCY } from './delivery-options.js';
import { UsageError } from './usage.js';

function usageMessage(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  return undefined;
}

describe("start's delivery options", () => {
  it('sets nothing but the address rules when no option is given', () => {
    expect(deliveryOptions({}, {})).toEqual({ allowPrivate: false, allowInsecure: false });
  });

  it('reads each option from its flag first, then from its environment variable', () => {
    expect(
      deliveryOptions(
        {
          'delivery-concurrency': '256',
          'delivery-retry-delays': '1s,5s,30s',
          'endpoint-concurrency': '8',
        },
        {
          DELIVERY_CONCURRENCY: '2',
          DELIVERY_RETRY_DELAYS: '1h',
          DELIVERY_TIMEOUT: '2.5',
          DELIVERY_AUTO_DISABLE_AFTER: '12h',
          ALLOW_INSECURE_ENDPOINTS: 'true',
        },
      ),
    ).toEqual({
      allowPrivate: false,
      allowInsecure: true,
      concurrency: 256,
      retryDelays: [1, 5, 30],
      endpointConcurrency: 8,
      attemptTimeoutMs: 2_500,
      autoDisableAfterMs: 12 * 3_600_000,
    });
    expect(
      deliveryOptions({ demo: true }, { DELIVERY_CONCURRENCY: '64', DELIVERY_RETRY_DELAYS: '' }),
    ).toEqual({ allowPrivate: true, allowInsecure: false, concurrency: 64, retryDelays: [] });
  });

  it('takes every delivery concurrency from 1 to the maximum, and refuses any other text', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_DELIVERY_CONCURRENCY }), (value) => {
        expect(deliveryOptions({ 'delivery-concurrency': String(value) }, {}).concurrency).toBe(
          value,
        );
      }),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string().filter((text) => !/^\s*\d+\s*$/.test(text)),
          fc.integer({ min: MAX_DELIVERY_CONCURRENCY + 1 }).map(String),
          fc.constantFrom('0', '00', '-1', '1.5', '1e2', ''),
        ),
        (text) => {
          expect(usageMessage(() => deliveryOptions({}, { DELIVERY_CONCURRENCY: text }))).toMatch(
            /^--delivery-concurrency \(DELIVERY_CONCURRENCY\) is a whole number of attempts in flight, from 1 to 1000; got /,
          );
        },
      ),
    );
  });

  it('refuses a bad retry schedule as a usage error that names the option and the entry', () => {
    expect(usageMessage(() => deliveryOptions({ 'delivery-retry-delays': '1s,soon' }, {}))).toBe(
      '--delivery-retry-delays (DELIVERY_RETRY_DELAYS): Retry delay #2 ("soon") is not a duration such as 30s, 5m, 2h or 1d, nor a number of seconds such as 0.5.',
    );
    expect(usageMessage(() => deliveryOptions({}, { DELIVERY_RETRY_DELAYS: '31d' }))).toMatch(
      /^--delivery-retry-delays \(DELIVERY_RETRY_DELAYS\): Retry delay #1 must be more than 0 and at most/,
    );
  });

  it('refuses the other options out of their bounds', () => {
    for (const values of [
      { 'delivery-timeout': '0' },
      { 'endpoint-concurrency': '1000' },
      { 'auto-disable-after': '30s' },
    ]) {
      expect(
        usageMessage(() => deliveryOptions(values, {})),
        JSON.stringify(values),
      ).toBeTypeOf('string');
    }
  });
});

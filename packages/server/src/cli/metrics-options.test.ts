import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { metricsAddress } from './metrics-options.js';
import { UsageError } from './usage.js';

describe('metricsAddress', () => {
  it('is off without a port, on loopback by default with one', () => {
    expect(metricsAddress({}, {}, 3000)).toBeUndefined();
    expect(metricsAddress({}, { METRICS_PORT: '' }, 3000)).toBeUndefined();
    expect(metricsAddress({ 'metrics-port': '9464' }, {}, 3000)).toEqual({
      port: 9464,
      host: '127.0.0.1',
    });
    expect(metricsAddress({}, { METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' }, 3000)).toEqual({
      port: 9464,
      host: '0.0.0.0',
    });
    // The flag wins over the variable.
    expect(metricsAddress({ 'metrics-port': '9100' }, { METRICS_PORT: '9464' }, 3000)?.port).toBe(
      9100,
    );
  });

  it('refuses a host without a port, and the API port', () => {
    expect(() => metricsAddress({ 'metrics-host': '0.0.0.0' }, {}, 3000)).toThrow(
      /--metrics-host \(METRICS_HOST\) needs --metrics-port/,
    );
    expect(() => metricsAddress({ 'metrics-port': '3000' }, {}, 3000)).toThrow(
      /--metrics-port must differ from --port/,
    );
  });

  it('takes every port from 0 to 65535 and refuses any other text with a usage error', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 65_535 }), (port) => {
        expect(metricsAddress({ 'metrics-port': String(port) }, {}, 65_536)?.port).toBe(port);
      }),
    );
    fc.assert(
      fc.property(
        fc.string().filter((text) => !/^\d+$/.test(text) || Number(text) > 65_535),
        (text) => {
          expect(() => metricsAddress({ 'metrics-port': text }, {}, 3000)).toThrow(UsageError);
        },
      ),
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isLoopbackHost,
  isTrue,
  parseAutoDisable,
  parsePort,
  sessionPolicy,
} from './start-option-parsers.js';
import { UsageError } from './usage.js';

describe("start's option parsers", () => {
  it('takes every port from 0 to 65535 written in digits, and refuses any other text', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 65_535 }), (port) => {
        expect(parsePort(String(port))).toBe(port);
      }),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string().filter((text) => !/^\d+$/.test(text)),
          fc.integer({ min: 65_536 }).map(String),
        ),
        (text) => {
          expect(() => parsePort(text)).toThrow(UsageError);
        },
      ),
    );
  });

  it('takes --auto-disable-after from 1m to 90d in ms, and refuses shorter, longer or garbage', () => {
    expect(parseAutoDisable('1m')).toBe(60_000);
    expect(parseAutoDisable('90d')).toBe(90 * 86_400_000);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 90 * 24 }), (hours) => {
        expect(parseAutoDisable(`${hours}h`)).toBe(hours * 3_600_000);
      }),
    );
    for (const text of ['59s', '91d', '5', 'soon', '']) {
      expect(() => parseAutoDisable(text)).toThrow(UsageError);
    }
  });

  it('reads the session durations from 1m to 30d, and neither given as no policy', () => {
    expect(sessionPolicy(undefined, undefined)).toBeUndefined();
    expect(sessionPolicy('30m', undefined)).toEqual({ idleTimeoutMs: 1_800_000 });
    expect(sessionPolicy(undefined, '12h')).toEqual({ absoluteLifetimeMs: 43_200_000 });
    expect(() => sessionPolicy('30s', undefined)).toThrow(/--session-idle/);
    expect(() => sessionPolicy(undefined, '31d')).toThrow(/--session-lifetime/);
  });

  it('reads yes from the environment only as 1, true, yes or on, in any case', () => {
    fc.assert(
      fc.property(fc.constantFrom('1', 'true', 'yes', 'on'), fc.boolean(), (word, upper) => {
        expect(isTrue(` ${upper ? word.toUpperCase() : word} `)).toBe(true);
      }),
    );
    for (const text of [undefined, '', '0', 'false', 'no', 'off', 'y']) {
      expect(isTrue(text)).toBe(false);
    }
  });

  it('tells loopback listen addresses from the others', () => {
    for (const host of ['localhost', '127.0.0.1', '127.8.9.10', '::1', '[::1]', 'LOCALHOST']) {
      expect(isLoopbackHost(host)).toBe(true);
    }
    for (const host of ['0.0.0.0', '::', '10.0.0.1', 'example.com', '128.0.0.1']) {
      expect(isLoopbackHost(host)).toBe(false);
    }
  });
});

import fc from 'fast-check';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import {
  hasBareTrustProxy,
  MAX_TRUSTED_HOPS,
  parseTrustProxy,
  TRUST_PROXY_NEEDS_PROXIES,
} from './trust-proxy.js';
import { UsageError } from './usage.js';

// An address or a CIDR range, as an operator writes one.
const proxyEntry = fc.oneof(
  fc.ipV4(),
  fc.ipV6(),
  fc.tuple(fc.ipV4(), fc.integer({ min: 1, max: 32 })).map(([ip, bits]) => `${ip}/${bits}`),
  fc.tuple(fc.ipV6(), fc.integer({ min: 1, max: 128 })).map(([ip, bits]) => `${ip}/${bits}`),
  fc.constantFrom('loopback', 'linklocal', 'uniquelocal'),
);

describe('--trust-proxy', () => {
  it('refuses to trust every hop, asking for the proxies or their number', () => {
    for (const text of ['true', 'TRUE', 'yes', 'on', '', '  ']) {
      expect(() => parseTrustProxy(text), JSON.stringify(text)).toThrow(
        new UsageError(TRUST_PROXY_NEEDS_PROXIES),
      );
    }
    expect(TRUST_PROXY_NEEDS_PROXIES).toContain('--trust-proxy 10.0.0.0/8,127.0.0.1');
    expect(TRUST_PROXY_NEEDS_PROXIES).toContain('--trust-proxy 1');
  });

  it('trusts nothing when unset, 0, false, no or off', () => {
    for (const text of [undefined, '0', 'false', 'No', 'off']) {
      expect(parseTrustProxy(text)).toBeUndefined();
    }
  });

  it('reads a hop count from 1 to the maximum, and refuses more', () => {
    for (let hops = 1; hops <= MAX_TRUSTED_HOPS; hops++) {
      expect(parseTrustProxy(String(hops))).toBe(hops);
    }
    for (const text of [String(MAX_TRUSTED_HOPS + 1), '100', '00', '01', '9'.repeat(30)]) {
      expect(() => parseTrustProxy(text), text).toThrow(UsageError);
    }
  });

  it('reads any list of addresses and CIDR ranges as it was written, and Fastify takes it', () => {
    fc.assert(
      fc.property(fc.array(proxyEntry, { minLength: 1, maxLength: 4 }), (entries) => {
        const parsed = parseTrustProxy(entries.join(' , '));
        expect(parsed).toEqual(entries);
        expect(() => Fastify({ trustProxy: parsed as string[] })).not.toThrow();
      }),
      { numRuns: 200 },
    );
    expect(parseTrustProxy('10.0.0.0/8,127.0.0.1')).toEqual(['10.0.0.0/8', '127.0.0.1']);
  });

  it('refuses what is not an address or a range, naming it', () => {
    for (const [text, named] of [
      ['10.0.0.0/33', '"10.0.0.0/33"'],
      ['0.0.0.0/0', '"0.0.0.0/0"'],
      ['::/0', '"::/0"'],
      ['fe80::1%eth0', '"fe80::1%eth0"'],
      ['::1/129', '"::1/129"'],
      ['10.0.0.1,', 'an empty entry'],
      ['proxy.internal', '"proxy.internal"'],
      ['10.0.0.256', '"10.0.0.256"'],
      ['10.0.0.0/08', '"10.0.0.0/08"'],
      ['-1', '"-1"'],
      ['all', '"all"'],
    ] as const) {
      expect(() => parseTrustProxy(text), text).toThrow(named);
    }
  });

  it('throws nothing but a usage error on any text, and what it accepts Fastify takes', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 40 }),
          fc.string({ unit: fc.constantFrom(...'0123456789abcdef.:/, '), maxLength: 40 }),
        ),
        (text) => {
          let parsed: ReturnType<typeof parseTrustProxy>;
          try {
            parsed = parseTrustProxy(text);
          } catch (error) {
            expect(error).toBeInstanceOf(UsageError);
            return;
          }
          if (Array.isArray(parsed)) expect(() => Fastify({ trustProxy: parsed })).not.toThrow();
          else if (parsed !== undefined) expect(parsed).toBeGreaterThanOrEqual(1);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('finds a --trust-proxy written without a value', () => {
    expect(hasBareTrustProxy(['start', '--trust-proxy'])).toBe(true);
    expect(hasBareTrustProxy(['start', '--trust-proxy', '--port', '0'])).toBe(true);
    expect(hasBareTrustProxy(['start', '--trust-proxy', '1'])).toBe(false);
    expect(hasBareTrustProxy(['start', '--trust-proxy=127.0.0.1'])).toBe(false);
    expect(hasBareTrustProxy(['start', '--port', '0'])).toBe(false);
    expect(hasBareTrustProxy(['start', '--', '--trust-proxy'])).toBe(false);
  });
});

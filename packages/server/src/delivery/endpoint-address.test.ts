import type { LookupAddress } from 'node:dns';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FollowUpServerError } from '../errors.js';
import { checkEndpointUrl, guardedLookup, isPublicAddress } from './endpoint-address.js';

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '192.0.2.10',
    '::',
    '::1',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '2001:db8::1',
    // IANA special-purpose ranges and unallocated blocks the hand-written list let through.
    '::7f00:1',
    '::a00:1',
    '::808:808',
    '::ffff:0:7f00:1',
    '::ffff:0:808:808',
    '64:ff9b:1::808:808',
    '2001::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '2001:2::1',
    '2001:10::1',
    '2001:20::1',
    '5f00::1',
    '3fff::1',
    '3fff:fff::1',
    '100:0:0:1::1',
    '4000::1',
    'fe80::1%eth0',
    '192.31.196.1',
    '192.52.193.1',
    '192.175.48.1',
    'localhost',
    'not an address',
    '',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('accepts %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it('refuses every address of the private IPv4 networks', () => {
    const octet = fc.integer({ min: 0, max: 255 });
    const privateAddress = fc.oneof(
      fc.tuple(octet, octet, octet).map(([b, c, d]) => `10.${b}.${c}.${d}`),
      fc
        .tuple(fc.integer({ min: 16, max: 31 }), octet, octet)
        .map(([b, c, d]) => `172.${b}.${c}.${d}`),
      fc.tuple(octet, octet).map(([c, d]) => `192.168.${c}.${d}`),
      fc.tuple(octet, octet, octet).map(([b, c, d]) => `127.${b}.${c}.${d}`),
    );
    fc.assert(
      fc.property(privateAddress, (address) => {
        expect(isPublicAddress(address)).toBe(false);
        expect(isPublicAddress(`::ffff:${address}`)).toBe(false);
      }),
    );
  });
});

describe('checkEndpointUrl', () => {
  // A URL is refused whole, never cut to the limit and saved.
  it('accepts a URL of 2,048 characters, and refuses a longer one, as given or as stored', () => {
    const base = 'https://hooks.example.com/followup?token=';
    const longest = `${base}${'a'.repeat(2_048 - base.length)}`;
    expect(checkEndpointUrl(longest).href).toBe(longest);
    fc.assert(
      fc.property(fc.integer({ min: 2_049, max: 20_000 }), (length) => {
        const text = `${base}${'a'.repeat(length - base.length)}`;
        expect(() => checkEndpointUrl(text)).toThrow(
          `The endpoint URL must be at most 2,048 characters; this one has ${length.toLocaleString('en-US')}`,
        );
      }),
      { numRuns: 50 },
    );
    // 1,000 spaces are 3,000 characters once stored as %20.
    const spaced = `https://hooks.example.com/${' '.repeat(1_000)}x`;
    expect(spaced.length).toBeLessThan(2_048);
    expect(() => checkEndpointUrl(spaced)).toThrow('at most 2,048 characters');
  });

  it('accepts http and https URLs', () => {
    expect(checkEndpointUrl('https://hooks.example.com/followup?x=1').hostname).toBe(
      'hooks.example.com',
    );
    expect(checkEndpointUrl('http://127.0.0.1:8080/hooks', { allowPrivate: true }).port).toBe(
      '8080',
    );
  });

  const refusedByDefault = (text: string) => {
    try {
      checkEndpointUrl(text);
      return false;
    } catch (error) {
      expect(FollowUpServerError.isInstance(error) && error.code).toBe('invalid_endpoint_url');
      return true;
    }
  };

  // Every form the WHATWG URL parser reads as a loopback, private, link-local or reserved
  // address, as it normalises them: decimal, hexadecimal and octal IPv4, short forms, IPv6
  // with an IPv4 address inside, and localhost by name.
  it.each([
    'http://127.0.0.1/hooks',
    'http://127.1/',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://0x7f.1/',
    'http://0177.0.0.1/',
    'http://017700000001/',
    'http://127.0.0.1./',
    'http://0/',
    'http://10.0.0.1/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.1/',
    'http://[::1]/',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://[::]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[::7f00:1]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[fe80::1]/',
    'http://[fc00::1]/',
    'http://[fd12:3456::1]/',
    'https://localhost/',
    'https://LOCALHOST:8443/',
    'https://localhost./',
    'https://api.localhost/',
  ])('refuses %s unless private endpoints are allowed', (text) => {
    expect(refusedByDefault(text)).toBe(true);
    expect(() => checkEndpointUrl(text)).toThrow('--allow-private-endpoints');
    expect(checkEndpointUrl(text, { allowPrivate: true }).href).toBe(new URL(text).href);
  });

  // A name is resolved, and judged, at each delivery (guardedLookup), not here.
  it.each([
    'https://hooks.example.com/',
    'https://localhost.example.com/',
    'https://93.184.216.34/',
    'https://1572395042/',
    'https://[2606:4700::1111]/',
    'https://[::ffff:5db8:d822]/',
  ])('accepts %s', (text) => {
    expect(refusedByDefault(text)).toBe(false);
  });

  it('refuses an IPv4 host in any form the URL parser reads iff its address is not public', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.constantFrom('dotted', 'decimal', 'hex', 'octal', 'short', 'mapped'),
        (value, form) => {
          const octets = [24, 16, 8, 0].map((shift) => (value >>> shift) & 255);
          const dotted = octets.join('.');
          const hex = (n: number) => n.toString(16);
          const host = {
            dotted,
            decimal: String(value),
            hex: `0x${hex(value)}`,
            octal: octets.map((octet) => `0${octet.toString(8)}`).join('.'),
            short: `${octets[0]}.${value & 0xffffff}`,
            mapped: `[::ffff:${hex(value >>> 16)}:${hex(value & 0xffff)}]`,
          }[form];
          expect(refusedByDefault(`https://${host}/hooks`)).toBe(!isPublicAddress(dotted));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses an IPv6 host iff its address is not public, and never when allowed', () => {
    fc.assert(
      fc.property(fc.ipV6(), (address) => {
        const text = `https://[${address}]/hooks`;
        const host = new URL(text).hostname.replace(/^\[|\]$/g, '');
        expect(refusedByDefault(text)).toBe(!isPublicAddress(host));
        expect(checkEndpointUrl(text, { allowPrivate: true }).hostname).toBe(`[${host}]`);
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    'ftp://example.com/',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'not a url',
    'https://user:pass@example.com/',
    `https://example.com/${'a'.repeat(2100)}`,
  ])('refuses %s', (text) => {
    try {
      checkEndpointUrl(text);
      throw new Error('accepted');
    } catch (error) {
      expect(FollowUpServerError.isInstance(error) && error.code).toBe('invalid_endpoint_url');
    }
  });
});

describe('guardedLookup', () => {
  const resolver =
    (addresses: LookupAddress[]) =>
    (
      _host: string,
      _options: unknown,
      callback: (error: Error | null, list: LookupAddress[]) => void,
    ) =>
      callback(null, addresses);
  const run = (
    addresses: LookupAddress[],
    allowPrivate: boolean,
    protocol = 'https:',
    allowInsecure = false,
  ) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
      guardedLookup({ allowPrivate, allowInsecure, protocol }, resolver(addresses) as never)(
        'hooks.example.test',
        {},
        (error, address) => resolve({ error, address }),
      ),
    );

  it('passes a name that resolves to public addresses only, pinned to the first', async () => {
    const result = await run([{ address: '93.184.216.34', family: 4 }], false);
    expect(result).toEqual({ error: null, address: '93.184.216.34' });
  });

  it('refuses a name with any private address among its answers (rebinding)', async () => {
    const result = await run(
      [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.5', family: 4 },
      ],
      false,
    );
    expect(result.error?.code).toBe('endpoint_address_private');
  });

  it('lets private addresses through when allowed', async () => {
    const result = await run([{ address: '127.0.0.1', family: 4 }], true);
    expect(result).toEqual({ error: null, address: '127.0.0.1' });
  });

  it('refuses http: to a public address unless insecure endpoints are allowed', async () => {
    const publicAnswer = [{ address: '93.184.216.34', family: 4 }];
    expect((await run(publicAnswer, false, 'http:')).error?.code).toBe('endpoint_insecure');
    expect((await run(publicAnswer, true, 'http:')).error?.code).toBe('endpoint_insecure');
    expect(await run(publicAnswer, false, 'http:', true)).toEqual({
      error: null,
      address: '93.184.216.34',
    });
    // A name with one public answer among private ones is still in clear on the internet.
    const mixed = [{ address: '10.0.0.5', family: 4 }, ...publicAnswer];
    expect((await run(mixed, true, 'http:')).error?.code).toBe('endpoint_insecure');
  });

  it('lets http: reach private addresses where private endpoints are allowed', async () => {
    const local = [{ address: '127.0.0.1', family: 4 }];
    expect(await run(local, true, 'http:')).toEqual({ error: null, address: '127.0.0.1' });
    expect((await run(local, false, 'http:')).error?.code).toBe('endpoint_address_private');
  });
});

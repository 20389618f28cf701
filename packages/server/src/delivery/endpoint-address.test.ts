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
    'localhost',
    'not an address',
    '',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'accepts %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );

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
  it('accepts http and https URLs', () => {
    expect(checkEndpointUrl('https://hooks.example.com/followup?x=1').hostname).toBe(
      'hooks.example.com',
    );
    expect(checkEndpointUrl('http://127.0.0.1:8080/hooks').port).toBe('8080');
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
  const run = (addresses: LookupAddress[], allowPrivate: boolean) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
      guardedLookup(allowPrivate, resolver(addresses) as never)(
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
});

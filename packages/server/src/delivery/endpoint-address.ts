import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { FollowUpServerError } from '../errors.js';

// Addresses a delivery must never reach unless private endpoints are allowed: loopback, private
// networks, link-local (cloud metadata services live at 169.254.169.254), carrier-grade NAT,
// "this network", multicast, reserved and documentation ranges. IPv4 addresses embedded in IPv6
// (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96) are judged as the IPv4 address they carry.
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address an IPv6 address carries (mapped or NAT64), if it carries one. */
function embeddedIPv4(address: string): string | undefined {
  const match =
    /^(?:::ffff:|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(
      address,
    );
  if (match === null) return undefined;
  if (match[1] !== undefined) return match[1];
  const high = Number.parseInt(match[2] as string, 16);
  const low = Number.parseInt(match[3] as string, 16);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/**
 * Whether an IP address may receive deliveries when private endpoints are not allowed: `false`
 * for loopback, private, link-local, reserved and similar ranges (see the list above), and for
 * anything that is not an IP address at all.
 */
export function isPublicAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 4) return !blocked.check(address, 'ipv4');
  if (version === 6) {
    const embedded = embeddedIPv4(address);
    if (embedded !== undefined) return isIP(embedded) === 4 && !blocked.check(embedded, 'ipv4');
    return !blocked.check(address, 'ipv6');
  }
  return false;
}

/**
 * Checks an endpoint URL when it is registered: `http:` or `https:` only, a host, no user name
 * or password in it, at most 2,048 characters. Where it points is checked at delivery time
 * (see {@link guardedLookup}), since a name can resolve elsewhere later.
 *
 * @throws FollowUpServerError `invalid_endpoint_url`, saying why.
 */
export function checkEndpointUrl(text: string): URL {
  const refuse = (why: string) =>
    new FollowUpServerError({ code: 'invalid_endpoint_url', message: `The endpoint URL ${why}.` });
  if (typeof text !== 'string' || text.length > 2_048)
    throw refuse('must be at most 2,048 characters');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse('is not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse('must use http or https');
  if (url.hostname === '') throw refuse('has no host');
  if (url.username !== '' || url.password !== '') {
    throw refuse('must not carry a user name or password (put credentials in the path or query)');
  }
  return url;
}

/** Error code of a delivery refused because its host resolves to a private address. */
export const PRIVATE_ADDRESS_REFUSED = 'endpoint_address_private';

/**
 * A `lookup` for `http.request` that resolves the endpoint's host and refuses to connect when
 * any address it resolves to is not public (unless `allowPrivate`), so the check and the
 * connection use the same answer: a name cannot pass the check and then resolve elsewhere.
 * A literal IP address in the URL is judged the same way.
 */
export function guardedLookup(
  allowPrivate: boolean,
  resolve: typeof dnsLookup = dnsLookup,
): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as unknown as LookupAddress[];
      const refused = allowPrivate
        ? undefined
        : list.find((entry) => !isPublicAddress(entry.address));
      if (list.length === 0 || refused !== undefined) {
        const failure = Object.assign(
          new Error(
            list.length === 0
              ? `${hostname} resolves to no address.`
              : `${hostname} resolves to a private or reserved address; deliveries there need --allow-private-endpoints.`,
          ),
          { code: PRIVATE_ADDRESS_REFUSED },
        );
        return callback(failure, '', 0);
      }
      if ((options as { all?: boolean }).all) return callback(null, list);
      const first = list[0] as LookupAddress;
      return callback(null, first.address, first.family);
    });
  };
}

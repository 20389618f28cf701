import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { FollowUpServerError } from '../errors.js';

// Which addresses may receive deliveries comes from ipaddr.js, whose range tables follow the IANA
// IPv4 and IPv6 special-purpose address registries (loopback, private, link-local, carrier-grade
// NAT, documentation, benchmarking, 6to4, Teredo, ORCHID, segment routing, AS112, AMT, …): only
// its `unicast` range is public. IPv6 must also lie in 2000::/3, the only block IANA allocates as
// global unicast, which rules out the deprecated IPv4-compatible ::/96 (`::7f00:1` is 127.0.0.1)
// and every other unallocated block. An IPv6 address that carries an IPv4 address and reaches it
// (mapped ::ffff:0:0/96, the well-known NAT64 prefix 64:ff9b::/96) is judged as that IPv4
// address; the local-use NAT64 prefix 64:ff9b:1::/48 and the translated ::ffff:0:0:0/96 never
// are public.
const globalUnicast = ipaddr.IPv6.parseCIDR('2000::/3');
const wellKnownNat64 = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

function isPublicIPv4(address: ipaddr.IPv4): boolean {
  return address.range() === 'unicast';
}

function isPublicIPv6(address: ipaddr.IPv6): boolean {
  if (address.isIPv4MappedAddress()) return isPublicIPv4(address.toIPv4Address());
  if (address.match(wellKnownNat64)) {
    const bytes = address.toByteArray().slice(12);
    return isPublicIPv4(new ipaddr.IPv4(bytes));
  }
  return address.range() === 'unicast' && address.match(globalUnicast);
}

/**
 * Whether an IP address may receive deliveries when private endpoints are not allowed: `true`
 * only for global unicast addresses outside every IANA special-purpose range (see above), and
 * `false` for anything that is not an IP address at all. A zone index (`fe80::1%eth0`) is never
 * public.
 */
export function isPublicAddress(address: string): boolean {
  if (typeof address !== 'string') return false;
  if (ipaddr.IPv4.isValidFourPartDecimal(address)) {
    return isPublicIPv4(ipaddr.IPv4.parse(address));
  }
  if (!ipaddr.IPv6.isValid(address)) return false;
  const parsed = ipaddr.IPv6.parse(address);
  if (parsed.zoneId !== undefined) return false;
  return isPublicIPv6(parsed);
}

/** What deliveries may reach: see {@link guardedLookup}. */
export interface AddressPolicy {
  /** Loopback, private and reserved addresses too (`--allow-private-endpoints`). */
  readonly allowPrivate: boolean;
  /**
   * `http:` to public addresses too (`--allow-insecure-endpoints`). Without it an `http:`
   * endpoint is reached only on a private address, and only where those are allowed.
   */
  readonly allowInsecure: boolean;
}

/** Error code of a delivery refused because its host resolves to a private address. */
export const PRIVATE_ADDRESS_REFUSED = 'endpoint_address_private';

/**
 * Error code of a delivery refused because it would carry the event in clear (`http:`) to a
 * public address.
 */
export const INSECURE_ENDPOINT_REFUSED = 'endpoint_insecure';

/**
 * Why a delivery may not go to `address` over `protocol` under `policy`, as an error code, or
 * `undefined` when it may.
 */
export function addressRefusal(
  address: string,
  protocol: string,
  policy: AddressPolicy,
): string | undefined {
  const isPublic = isPublicAddress(address);
  if (!isPublic) return policy.allowPrivate ? undefined : PRIVATE_ADDRESS_REFUSED;
  if (protocol === 'http:' && !policy.allowInsecure) return INSECURE_ENDPOINT_REFUSED;
  return undefined;
}

/** The longest endpoint URL: 2,048 characters, as given and as stored (normalised). */
export const MAX_ENDPOINT_URL_LENGTH = 2_048;

/**
 * Why an endpoint URL is too long, or `undefined` when it is not: over
 * {@link MAX_ENDPOINT_URL_LENGTH} characters as given, or as it would be stored (normalised: a
 * space becomes `%20`, a Unicode name its `xn--` form). Such a URL is refused, never cut.
 */
export function endpointUrlLengthRefusal(text: string): string | undefined {
  let length = text.length;
  if (length <= MAX_ENDPOINT_URL_LENGTH) {
    try {
      length = new URL(text).href.length;
    } catch {
      return undefined;
    }
  }
  return length > MAX_ENDPOINT_URL_LENGTH
    ? `The endpoint URL must be at most 2,048 characters; this one has ${length.toLocaleString('en-US')}.`
    : undefined;
}

/**
 * Whether a parsed URL's host is a loopback, private, link-local or otherwise reserved address
 * written as such, so that no name resolution could make it public: an IP literal that
 * {@link isPublicAddress} refuses, in whatever form the WHATWG URL parser read (it turns
 * `2130706433`, `0x7f.1` and `0177.0.0.1` into `127.0.0.1`, and `[::ffff:127.0.0.1]` into
 * `[::ffff:7f00:1]`), or `localhost` and any name under it, which resolve to loopback (RFC 6761).
 * Any other name is for {@link guardedLookup} to judge at each attempt.
 */
export function isPrivateLiteralHost(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return !isPublicAddress(host);
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * Checks an endpoint URL when it is registered: `http:` or `https:` only, a host, no user name
 * or password in it, not too long ({@link endpointUrlLengthRefusal}: at most 2,048 characters,
 * as given and as stored), and, unless `allowPrivate` (`--allow-private-endpoints`), not a
 * loopback, private, link-local or reserved address written as one ({@link isPrivateLiteralHost}):
 * the same policy as at delivery time. A name is checked at delivery time (see
 * {@link guardedLookup}), since it can resolve elsewhere later.
 *
 * @throws FollowUpServerError `invalid_endpoint_url`, saying why.
 */
export function checkEndpointUrl(
  text: string,
  policy: { readonly allowPrivate: boolean } = { allowPrivate: false },
): URL {
  const refuse = (why: string) =>
    new FollowUpServerError({ code: 'invalid_endpoint_url', message: `The endpoint URL ${why}.` });
  if (typeof text !== 'string') throw refuse('is not a valid URL');
  const tooLong = endpointUrlLengthRefusal(text);
  if (tooLong !== undefined) {
    throw new FollowUpServerError({ code: 'invalid_endpoint_url', message: tooLong });
  }
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
  if (!policy.allowPrivate && isPrivateLiteralHost(url)) {
    throw refuse(
      `points to a loopback, private, link-local or reserved address (${url.hostname}); deliveries there need --allow-private-endpoints`,
    );
  }
  return url;
}

/**
 * A `lookup` for `http.request` that resolves the endpoint's host and refuses to connect when
 * any address it resolves to is refused by {@link addressRefusal} (private, unless
 * `allowPrivate`; public over `http:`, unless `allowInsecure`), so the check and the connection
 * use the same answer: a name cannot pass the check and then resolve elsewhere.
 */
export function guardedLookup(
  policy: AddressPolicy & { readonly protocol: string },
  resolve: typeof dnsLookup = dnsLookup,
): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as unknown as LookupAddress[];
      let code: string | undefined = list.length === 0 ? PRIVATE_ADDRESS_REFUSED : undefined;
      for (const entry of list) {
        code ??= addressRefusal(entry.address, policy.protocol, policy);
      }
      if (code !== undefined) {
        const message =
          list.length === 0
            ? `${hostname} resolves to no address.`
            : code === INSECURE_ENDPOINT_REFUSED
              ? `${hostname} is public and the endpoint uses http:; deliveries in clear there need --allow-insecure-endpoints.`
              : `${hostname} resolves to a private or reserved address; deliveries there need --allow-private-endpoints.`;
        return callback(Object.assign(new Error(message), { code }), '', 0);
      }
      if ((options as { all?: boolean }).all) return callback(null, list);
      const first = list[0] as LookupAddress;
      return callback(null, first.address, first.family);
    });
  };
}

import { isIP } from 'node:net';
import { UsageError } from './usage.js';

/**
 * @internal What `--trust-proxy` (`TRUST_PROXY`) names: the addresses and CIDR ranges of the
 * reverse proxies in front of the server, or how many proxies there are (hops). Fastify's
 * `trustProxy` takes either.
 */
export type TrustedProxies = string[] | number;

/** @internal The most hops `--trust-proxy N` takes: more proxies than that is a mistake. */
export const MAX_TRUSTED_HOPS = 32;

// Names proxy-addr (under Fastify's trustProxy) gives to ranges: 127.0.0.0/8 and ::1,
// 169.254.0.0/16 and fe80::/10, and the private ranges (10/8, 172.16/12, 192.168/16, fc00::/7).
const rangeNames = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * @internal The message of a `--trust-proxy` without the proxies: trusting every hop lets any
 * client write its own address into `X-Forwarded-For`.
 */
export const TRUST_PROXY_NEEDS_PROXIES =
  '--trust-proxy (TRUST_PROXY) takes the addresses of your reverse proxies or how many there ' +
  'are: --trust-proxy 10.0.0.0/8,127.0.0.1 (addresses or CIDR ranges, comma-separated) or ' +
  '--trust-proxy 1 (one proxy in front). Trusting every hop would let any client choose its own ' +
  'address with X-Forwarded-For.';

function isAddressOrRange(entry: string): boolean {
  if (rangeNames.has(entry)) return true;
  const slash = entry.indexOf('/');
  const address = slash === -1 ? entry : entry.slice(0, slash);
  // No IPv6 zone (`%eth0`): a socket's address, which the proxy's is matched against, has none.
  const version = address.includes('%') ? 0 : isIP(address);
  if (version === 0) return false;
  if (slash === -1) return true;
  // Not /0: a range of every address is every hop trusted.
  const prefix = entry.slice(slash + 1);
  return /^[1-9][0-9]{0,2}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

/**
 * @internal Reads `--trust-proxy` / `TRUST_PROXY`: the proxies' addresses (comma-separated,
 * CIDR ranges and the names `loopback`, `linklocal`, `uniquelocal` allowed), or a hop count
 * from 1 to {@link MAX_TRUSTED_HOPS}. `undefined` (nothing trusted) for no value, and for
 * `0`, `false`, `no` or `off`. `true`, `yes`, `on` and an empty value are refused with
 * {@link TRUST_PROXY_NEEDS_PROXIES}: trusting every hop is never what an operator means.
 *
 * @throws UsageError for anything else, naming what it takes.
 */
export function parseTrustProxy(text: string | undefined): TrustedProxies | undefined {
  if (text === undefined) return undefined;
  const value = text.trim();
  if (/^(0|false|no|off)$/i.test(value)) return undefined;
  if (value === '' || /^(true|yes|on)$/i.test(value))
    throw new UsageError(TRUST_PROXY_NEEDS_PROXIES);
  if (/^[0-9]+$/.test(value)) {
    const hops = Number(value);
    if (!/^[1-9][0-9]?$/.test(value) || hops > MAX_TRUSTED_HOPS) {
      throw new UsageError(
        `--trust-proxy ${value}: a hop count is 1 to ${MAX_TRUSTED_HOPS}, the proxies in front of the server.`,
      );
    }
    return hops;
  }
  const entries = value.split(',').map((entry) => entry.trim());
  const wrong = entries.find((entry) => !isAddressOrRange(entry));
  if (wrong !== undefined) {
    throw new UsageError(
      `--trust-proxy: ${wrong === '' ? 'an empty entry' : JSON.stringify(wrong)} is not an IP address or CIDR range. ${TRUST_PROXY_NEEDS_PROXIES}`,
    );
  }
  return entries;
}

/**
 * @internal Whether the command line has `--trust-proxy` with no value after it (last, or
 * followed by another option), as it was written when it took none. Caught before the
 * options are parsed, so that the answer asks for the proxies rather than for "an argument".
 */
export function hasBareTrustProxy(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  const options = end === -1 ? argv : argv.slice(0, end);
  return options.some(
    (argument, index) =>
      argument === '--trust-proxy' &&
      (index === options.length - 1 || (options[index + 1] ?? '').startsWith('-')),
  );
}

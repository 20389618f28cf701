import type { BuildServerOptions } from '../build-server.js';
import type { CliOptions } from './usage.js';
import { UsageError } from './usage.js';

type Values = Pick<CliOptions, 'rate-limit' | 'address-rate-limit' | 'auth-failure-limit'>;

/** The most any per-minute limit may be set to. */
const MAX_PER_MINUTE = 1_000_000;

function perMinute(flag: string, variable: string, text: string | undefined) {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d{1,7}$/.test(text.trim()) || value > MAX_PER_MINUTE) {
    throw new UsageError(
      `--${flag} (${variable}) is a whole number of requests a minute, 0 (off) to ${MAX_PER_MINUTE}.`,
    );
  }
  return value === 0 ? false : { limit: value, windowSeconds: 60 };
}

/**
 * @internal The limits of `start` that protect the server from its clients: requests per token,
 * per client address on the routes anyone may call, failed authentications per address. Each is
 * a flag or an environment variable, per minute, 0 turning it off.
 */
export function edgeOptions(
  values: Values,
  env: Record<string, string | undefined>,
): Pick<BuildServerOptions, 'rateLimit' | 'addressRateLimit' | 'authFailureLimit'> {
  const rateLimit = perMinute('rate-limit', 'RATE_LIMIT', values['rate-limit'] ?? env.RATE_LIMIT);
  const addressRateLimit = perMinute(
    'address-rate-limit',
    'ADDRESS_RATE_LIMIT',
    values['address-rate-limit'] ?? env.ADDRESS_RATE_LIMIT,
  );
  const authFailureLimit = perMinute(
    'auth-failure-limit',
    'AUTH_FAILURE_LIMIT',
    values['auth-failure-limit'] ?? env.AUTH_FAILURE_LIMIT,
  );
  return {
    ...(rateLimit === undefined ? {} : { rateLimit }),
    ...(addressRateLimit === undefined ? {} : { addressRateLimit }),
    ...(authFailureLimit === undefined ? {} : { authFailureLimit }),
  };
}

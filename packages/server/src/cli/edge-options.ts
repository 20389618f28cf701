import type { BuildServerOptions } from '../build-server-options.js';
import { type ConnectionLimits, DEFAULT_CONNECTION_LIMITS } from '../connection-limits.js';
import { MAX_RETENTION_DAYS, type RetentionPolicy } from '../retention/retention.js';
import type { CliOptions } from './usage.js';
import { UsageError } from './usage.js';

type Values = Pick<
  CliOptions,
  | 'rate-limit'
  | 'address-rate-limit'
  | 'auth-failure-limit'
  | 'headers-timeout'
  | 'request-timeout'
  | 'keep-alive-timeout'
  | 'max-connections'
>;

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
 * @internal A whole number from 1 to `max` given by `--flag` or `variable`, or a usage error
 * naming both.
 */
export function wholeNumber(flag: string, variable: string, text: string | undefined, max: number) {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d{1,7}$/.test(text.trim()) || value < 1 || value > max) {
    throw new UsageError(`--${flag} (${variable}) is a whole number from 1 to ${max}.`);
  }
  return value;
}

/**
 * @internal The limits of `start` that protect the server from its clients: requests per token,
 * per client address on the routes anyone may call, failed authentications per address. Each is
 * a flag or an environment variable, per minute, 0 turning it off.
 */
export function edgeOptions(
  values: Values,
  env: Record<string, string | undefined>,
): Pick<BuildServerOptions, 'rateLimit' | 'addressRateLimit' | 'authFailureLimit'> & {
  connectionLimits?: Partial<ConnectionLimits>;
} {
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
  const seconds = (flag: string, variable: string) => {
    const value = wholeNumber(flag, variable, values[flag as keyof Values] ?? env[variable], 3600);
    return value === undefined ? undefined : value * 1000;
  };
  const connectionLimits: Partial<ConnectionLimits> = {};
  const headersTimeoutMs = seconds('headers-timeout', 'HEADERS_TIMEOUT');
  const requestTimeoutMs = seconds('request-timeout', 'REQUEST_TIMEOUT');
  const keepAliveTimeoutMs = seconds('keep-alive-timeout', 'KEEP_ALIVE_TIMEOUT');
  const maxConnections = wholeNumber(
    'max-connections',
    'MAX_CONNECTIONS',
    values['max-connections'] ?? env.MAX_CONNECTIONS,
    1_000_000,
  );
  if (headersTimeoutMs !== undefined) connectionLimits.headersTimeoutMs = headersTimeoutMs;
  if (requestTimeoutMs !== undefined) connectionLimits.requestTimeoutMs = requestTimeoutMs;
  if (keepAliveTimeoutMs !== undefined) connectionLimits.keepAliveTimeoutMs = keepAliveTimeoutMs;
  if (maxConnections !== undefined) connectionLimits.maxConnections = maxConnections;
  const headers = connectionLimits.headersTimeoutMs ?? DEFAULT_CONNECTION_LIMITS.headersTimeoutMs;
  const request = connectionLimits.requestTimeoutMs ?? DEFAULT_CONNECTION_LIMITS.requestTimeoutMs;
  if (headers > request) {
    throw new UsageError('--headers-timeout cannot be longer than --request-timeout.');
  }
  return {
    ...(Object.keys(connectionLimits).length === 0 ? {} : { connectionLimits }),
    ...(rateLimit === undefined ? {} : { rateLimit }),
    ...(addressRateLimit === undefined ? {} : { addressRateLimit }),
    ...(authFailureLimit === undefined ? {} : { authFailureLimit }),
  };
}

/**
 * @internal The retention of `start` and `prune`: `--receipt-retention` / `RECEIPT_RETENTION_DAYS`,
 * `--delivery-retention` / `DELIVERY_RETENTION_DAYS` and `--tombstone-retention` /
 * `TOMBSTONE_RETENTION_DAYS`, whole days (1 to 3650).
 */
export function retentionOptions(
  values: Pick<CliOptions, 'receipt-retention' | 'delivery-retention' | 'tombstone-retention'>,
  env: Record<string, string | undefined>,
): Partial<RetentionPolicy> {
  const receiptDays = wholeNumber(
    'receipt-retention',
    'RECEIPT_RETENTION_DAYS',
    values['receipt-retention'] ?? env.RECEIPT_RETENTION_DAYS,
    MAX_RETENTION_DAYS,
  );
  const deliveryDays = wholeNumber(
    'delivery-retention',
    'DELIVERY_RETENTION_DAYS',
    values['delivery-retention'] ?? env.DELIVERY_RETENTION_DAYS,
    MAX_RETENTION_DAYS,
  );
  const tombstoneDays = wholeNumber(
    'tombstone-retention',
    'TOMBSTONE_RETENTION_DAYS',
    values['tombstone-retention'] ?? env.TOMBSTONE_RETENTION_DAYS,
    MAX_RETENTION_DAYS,
  );
  return {
    ...(receiptDays === undefined ? {} : { receiptDays }),
    ...(deliveryDays === undefined ? {} : { deliveryDays }),
    ...(tombstoneDays === undefined ? {} : { tombstoneDays }),
  };
}

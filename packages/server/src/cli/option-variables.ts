import { isTrue } from './start-option-parsers.js';
import type { CliOptions, OptionName } from './usage.js';

/**
 * @internal The environment variable of each option of `start` and of every command: the one
 * list that the README's configuration table and `--help` are checked against, so that every flag
 * can be set where a container or a unit file sets a server's configuration. A flag given on the
 * command line wins over its variable. `--help` has none: it configures nothing, it prints.
 */
export const OPTION_VARIABLES = {
  port: 'PORT',
  host: 'HOST',
  'data-dir': 'FOLLOWUP_DATA_DIR',
  'database-url': 'DATABASE_URL',
  'database-connections': 'DATABASE_CONNECTIONS',
  'unsafe-no-fsync': 'UNSAFE_NO_FSYNC',
  json: 'FOLLOWUP_JSON',
  demo: 'FOLLOWUP_DEMO',
  'allow-private-endpoints': 'ALLOW_PRIVATE_ENDPOINTS',
  'allow-insecure-endpoints': 'ALLOW_INSECURE_ENDPOINTS',
  'delivery-retry-delays': 'DELIVERY_RETRY_DELAYS',
  'delivery-timeout': 'DELIVERY_TIMEOUT',
  'delivery-concurrency': 'DELIVERY_CONCURRENCY',
  'endpoint-concurrency': 'DELIVERY_ENDPOINT_CONCURRENCY',
  'auto-disable-after': 'DELIVERY_AUTO_DISABLE_AFTER',
  'public-url': 'PUBLIC_URL',
  'trust-proxy': 'TRUST_PROXY',
  'session-idle': 'SESSION_IDLE_TIMEOUT',
  'session-lifetime': 'SESSION_LIFETIME',
  'allow-open-inbox': 'ALLOW_OPEN_INBOX',
  'rate-limit': 'RATE_LIMIT',
  'address-rate-limit': 'ADDRESS_RATE_LIMIT',
  'receipt-retention': 'RECEIPT_RETENTION_DAYS',
  'delivery-retention': 'DELIVERY_RETENTION_DAYS',
  'tombstone-retention': 'TOMBSTONE_RETENTION_DAYS',
  'headers-timeout': 'HEADERS_TIMEOUT',
  'request-timeout': 'REQUEST_TIMEOUT',
  'keep-alive-timeout': 'KEEP_ALIVE_TIMEOUT',
  'max-connections': 'MAX_CONNECTIONS',
  'auth-failure-limit': 'AUTH_FAILURE_LIMIT',
  'metrics-port': 'METRICS_PORT',
  'metrics-host': 'METRICS_HOST',
  'log-level': 'LOG_LEVEL',
  'log-format': 'LOG_FORMAT',
} as const satisfies Partial<Record<OptionName, string>>;

/** @internal The options that configure nothing, and so have no environment variable. */
export const OPTIONS_WITHOUT_VARIABLE: readonly OptionName[] = ['help'];

/**
 * @internal `--json` from `FOLLOWUP_JSON` and, for `start`, `--demo` from `FOLLOWUP_DEMO`
 * (`true`, `1`, `yes` or `on`): the switches that the commands read from `values` alone. A
 * switch given on the command line stays on whatever the variable says.
 */
export function withEnvironmentSwitches(
  values: CliOptions,
  env: Record<string, string | undefined>,
  { command }: { command: string | undefined },
): CliOptions {
  const json = values.json === true || isTrue(env[OPTION_VARIABLES.json]);
  const demo = values.demo === true || (command === 'start' && isTrue(env[OPTION_VARIABLES.demo]));
  return json === values.json && demo === values.demo ? values : { ...values, json, demo };
}

import { parsePort } from './start-option-parsers.js';
import { type CliOptions, UsageError } from './usage.js';

/** @internal Where `start` serves its metrics: `--metrics-port` and `--metrics-host`. */
export interface MetricsAddress {
  port: number;
  host: string;
}

/** @internal The address metrics are served on when only the port is given. */
export const DEFAULT_METRICS_HOST = '127.0.0.1';

/**
 * @internal `--metrics-port` / `METRICS_PORT` and `--metrics-host` / `METRICS_HOST`: where the
 * metrics listener listens, `undefined` (no listener) without a port. An empty variable is unset,
 * as a compose file writes it. A host without a port, or the API's own port, is a usage error.
 */
export function metricsAddress(
  values: Pick<CliOptions, 'metrics-port' | 'metrics-host'>,
  env: Record<string, string | undefined>,
  apiPort: number,
): MetricsAddress | undefined {
  const portText = values['metrics-port'] ?? (env.METRICS_PORT || undefined);
  const host = values['metrics-host'] ?? (env.METRICS_HOST || undefined);
  if (portText === undefined) {
    if (host !== undefined) {
      throw new UsageError('--metrics-host (METRICS_HOST) needs --metrics-port (METRICS_PORT).');
    }
    return undefined;
  }
  let port: number;
  try {
    port = parsePort(portText);
  } catch {
    throw new UsageError(
      '--metrics-port (METRICS_PORT) is a port, 0 to 65535 (0 picks a free one).',
    );
  }
  if (port !== 0 && port === apiPort) {
    throw new UsageError(
      '--metrics-port must differ from --port: metrics have a listener of their own.',
    );
  }
  if (host === '') throw new UsageError('--metrics-host (METRICS_HOST) is an address.');
  return { port, host: host ?? DEFAULT_METRICS_HOST };
}

import { createServerTracing, type ServerTracing } from './server-tracing.js';
import {
  type TracingEnvironment,
  tracingRequested,
  tracingServiceName,
} from './tracing-environment.js';

/**
 * @internal Starts the OpenTelemetry Node SDK when the standard variables ask for traces (see
 * {@link tracingRequested}), and answers the server's tracing over it; answers `undefined`, having
 * loaded nothing, when they do not. The SDK is imported here, dynamically, and nowhere else: a
 * server without the variables never loads it, and every span it would make is the API's no-op.
 *
 * The SDK reads its configuration from `process.env` itself (exporter, endpoint, protocol,
 * `http/json` included, sampler, batch delays, propagators; W3C Trace Context and baggage by
 * default); only traces are exported, metrics being Prometheus's (`--metrics-port`) and logs
 * pino's. `OTEL_SERVICE_NAME` defaults to `followup-server`.
 */
export async function startTracing(env: TracingEnvironment): Promise<ServerTracing | undefined> {
  if (!tracingRequested(env)) return undefined;
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK({
    serviceName: tracingServiceName(env),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  return createServerTracing({ shutdown: () => sdk.shutdown() });
}

#!/usr/bin/env node
// The server as `followup-server start` runs it (the built package: buildServer with the default
// logger at info on standard error, the delivery worker, the default per-token rate limiter), on
// the data directory or PostgreSQL URL given, listening on a free loopback port; prints its URL.
// One difference, said in the results: the rate limit is set far above what the benchmark sends
// (the limiter runs on every request and never refuses), since the default (600 a minute per
// token) would turn a benchmark of 64 tokens into one of 429s. BENCH_METRICS=1: with metrics on,
// as `start --metrics-port` runs them (metrics.bench.mjs), the metrics URL on a second line.
// BENCH_TRACING=1: with traces on, as `start` runs them when the OTEL_* variables ask
// (observability.bench.mjs): the OpenTelemetry Node SDK, configured by those variables, request
// and delivery-attempt spans, and statement spans through `traceStatements`.
import {
  buildServer,
  createDeliveryWorker,
  createServerMetrics,
  createServerTracing,
  listenForMetrics,
  openPGliteDatabase,
  openPostgresDatabase,
  traceStatements,
} from '../dist/index.js';

/**
 * What `start` does when the OTEL_* variables ask for traces (`startTracing`, internal to the
 * package): the Node SDK with the same options (traces only; exporter, endpoint, protocol and
 * batching read by the SDK from the environment), through the exported `createServerTracing`,
 * as the README's "In your own process" says.
 */
async function startBenchTracing() {
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME || 'followup-server',
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  return createServerTracing({ shutdown: () => sdk.shutdown() });
}

const [target] = process.argv.slice(2);
const tracing = process.env.BENCH_TRACING === '1' ? await startBenchTracing() : undefined;
const opened = target.startsWith('postgres')
  ? await openPostgresDatabase({ connectionString: target })
  : await openPGliteDatabase({
      dataDir: target,
      // BENCH_UNSAFE_NO_FSYNC=1: what --unsafe-no-fsync trades (see server.bench.mjs).
      unsafeNoFsync: process.env.BENCH_UNSAFE_NO_FSYNC === '1',
    });
const database = tracing ? traceStatements(opened, tracing) : opened;
const metrics = process.env.BENCH_METRICS === '1' ? createServerMetrics({ database }) : undefined;
const worker = createDeliveryWorker({
  database,
  ...(metrics ? { onAttempt: metrics.observeAttempt } : {}),
  ...(tracing ? { tracing } : {}),
});
const app = buildServer({
  database,
  ...(metrics ? { metrics } : {}),
  ...(tracing ? { tracing } : {}),
  onOutboxEvent: () => worker.wake(),
  logger: { level: 'info', stream: process.stderr },
  rateLimit: { limit: 100_000_000, windowSeconds: 60 },
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });
const metricsListener = metrics ? await listenForMetrics(metrics, { port: 0 }) : undefined;
worker.start();
process.stdout.write(`${url}\n`);
if (metricsListener) process.stdout.write(`${metricsListener.url}/metrics\n`);
const stop = async () => {
  await metricsListener?.close();
  await app.close();
  await worker.close();
  await database.close();
  // Last, as `start` does: the spans still buffered are exported before the process exits.
  await tracing?.shutdown();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

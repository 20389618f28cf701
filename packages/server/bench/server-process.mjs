#!/usr/bin/env node
// The server as `followup-server start` runs it (the built package: buildServer with the default
// logger at info on standard error, the delivery worker, the default per-token rate limiter), on
// the data directory or PostgreSQL URL given, listening on a free loopback port; prints its URL.
// One difference, said in the results: the rate limit is set far above what the benchmark sends
// (the limiter runs on every request and never refuses), since the default (600 a minute per
// token) would turn a benchmark of 64 tokens into one of 429s. BENCH_METRICS=1: with metrics on,
// as `start --metrics-port` runs them (metrics.bench.mjs), the metrics URL on a second line.
import {
  buildServer,
  createDeliveryWorker,
  createServerMetrics,
  listenForMetrics,
  openPGliteDatabase,
  openPostgresDatabase,
} from '../dist/index.js';

const [target] = process.argv.slice(2);
const database = target.startsWith('postgres')
  ? await openPostgresDatabase({ connectionString: target })
  : await openPGliteDatabase({
      dataDir: target,
      // BENCH_UNSAFE_NO_FSYNC=1: what --unsafe-no-fsync trades (see server.bench.mjs).
      unsafeNoFsync: process.env.BENCH_UNSAFE_NO_FSYNC === '1',
    });
const metrics = process.env.BENCH_METRICS === '1' ? createServerMetrics({ database }) : undefined;
const worker = createDeliveryWorker({
  database,
  ...(metrics ? { onAttempt: metrics.observeAttempt } : {}),
});
const app = buildServer({
  database,
  ...(metrics ? { metrics } : {}),
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
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

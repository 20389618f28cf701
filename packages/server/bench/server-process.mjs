#!/usr/bin/env node
// The server as `followup-server start` runs it (the built package: buildServer with the default
// logger at info on standard error, the delivery worker, the default per-token rate limiter), on
// the data directory or PostgreSQL URL given, listening on a free loopback port; prints its URL.
// One difference, said in the results: the rate limit is set far above what the benchmark sends
// (the limiter runs on every request and never refuses), since the default (600 a minute per
// token) would turn a benchmark of 64 tokens into one of 429s.
import {
  buildServer,
  createDeliveryWorker,
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
const worker = createDeliveryWorker({ database });
const app = buildServer({
  database,
  onOutboxEvent: () => worker.wake(),
  logger: { level: 'info', stream: process.stderr },
  rateLimit: { limit: 100_000_000, windowSeconds: 60 },
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });
worker.start();
process.stdout.write(`${url}\n`);
const stop = async () => {
  await app.close();
  await worker.close();
  await database.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

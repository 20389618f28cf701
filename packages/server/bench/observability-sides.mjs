// The sides of observability.bench.mjs and what both its modes (one side after another, or two
// at the same time) do with them: the OTLP receiver the traced side exports to, a server process
// per side, the drivers and their seeded data, the list and create loads, and one measure of a
// load with the server's CPU time per request.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { processCpuMicros } from '../../../scripts/bench/measure.mjs';
import { migrate, openPGliteDatabase, openPostgresDatabase } from '../dist/index.js';
import { issueRoleTokens, seedContacts } from './bench-data.mjs';
import { scratchPostgresDatabase } from './drivers.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

/** What each side is called in the results. */
export const SIDE_TITLES = {
  off: 'off',
  metrics: 'metrics',
  tracing: 'metrics + tracing',
  control: 'off again',
};
/** The sides that run neither metrics nor traces. */
const BARE_SIDES = new Set(['off', 'control']);

/**
 * An OTLP/HTTP JSON receiver as small as a collector's front can be: it answers 200 to
 * `POST /v1/traces` and counts the spans of each body, and keeps nothing else.
 */
export async function startSpanCounter() {
  let spans = 0;
  let malformed = 0;
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const resourceSpans of body.resourceSpans ?? []) {
          for (const scope of resourceSpans.scopeSpans ?? []) spans += scope.spans?.length ?? 0;
        }
      } catch {
        malformed++;
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    counted: () => ({ spans, malformed }),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/**
 * Starts `server-process.mjs` on `target` (a data directory or a PostgreSQL URL) as `side` runs
 * it; resolves with the process, its URL and, for a side with metrics, its metrics URL.
 */
export async function startServer({ target, side, receiver }) {
  const env = {
    ...process.env,
    BENCH_METRICS: BARE_SIDES.has(side) ? '0' : '1',
    BENCH_TRACING: '0',
  };
  // The variables an operator sets for traces (README, "Traces"); nothing else of the SDK's is
  // configured, so its batching is its default. Never inherited by the other sides.
  for (const name of Object.keys(env)) if (name.startsWith('OTEL_')) delete env[name];
  if (side === 'tracing') {
    Object.assign(env, {
      BENCH_TRACING: '1',
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    });
  }
  const running = spawn(process.execPath, [here('./server-process.mjs'), target], {
    stdio: ['ignore', 'pipe', 'ignore'],
    env,
  });
  const lines = createInterface({ input: running.stdout })[Symbol.asyncIterator]();
  const base = (await lines.next()).value;
  const metricsUrl = BARE_SIDES.has(side) ? undefined : (await lines.next()).value;
  // Scraped once now, so that the first scrape of a measure does not load fetch into this
  // process, the load generator's, which would slow the load on the metrics side alone.
  if (metricsUrl) await (await fetch(metricsUrl)).text();
  return { running, base, metricsUrl };
}

/** Stops a server of {@link startServer}; the traced one exports what it still holds first. */
export async function stopServer({ running }) {
  if (running.exitCode !== null) return;
  const exited = once(running, 'exit');
  running.kill('SIGTERM');
  await exited;
}

/** Throws unless a server with metrics counted the create requests it answered. */
export async function checkMetricsCounted(server) {
  if (!server.metricsUrl) return;
  const text = await (await fetch(server.metricsUrl)).text();
  if (!text.includes('followup_http_requests_total{method="POST",route="/api/contacts"')) {
    throw new Error('The metrics did not count the requests.');
  }
}

/**
 * Migrates and seeds the driver's database (`contacts` contacts, `tokens` tokens of each role)
 * and closes it; resolves with the requests of the list and create loads, the tokens spread
 * over them.
 */
export async function seedScenarios(driver, { contacts, tokens: perRole }) {
  const database = await driver.open();
  await migrate(database);
  await seedContacts(database, contacts);
  const tokens = await issueRoleTokens(database, { prefix: 'bench', perRole });
  await database.close();
  const auth = (token) => ({ authorization: `Bearer ${token}` });
  return {
    list: tokens.READONLY.map((token) => ({
      method: 'GET',
      path: '/api/contacts?limit=50&offset=100',
      headers: auth(token),
    })),
    create: tokens.AGENT.map((token) => ({
      method: 'POST',
      path: '/api/contacts',
      headers: { ...auth(token), 'content-type': 'application/json' },
      body: JSON.stringify({ firstName: 'Bench', lastName: 'Create', lifecycle: 'LEAD' }),
    })),
  };
}

/**
 * Sends `requests` to a server for `seconds` (`load`: autocannon's connections, and its
 * `overallRate` when there is one), with one scrape of a server with metrics a second in; resolves
 * with its throughput, 99th percentile, and CPU time per request of the server's process, read
 * when this load ends (so that a load that ends first is not charged the other's tail). Any
 * failed request throws: a side that fails is not measured.
 */
export async function measureLoad(server, requests, { seconds, load }) {
  const scrape = server.metricsUrl
    ? setTimeout(
        () =>
          fetch(server.metricsUrl)
            .then((response) => response.text())
            .catch(() => {}),
        1_000,
      )
    : undefined;
  const before = processCpuMicros(server.running.pid);
  const result = await autocannon({ url: server.base, ...load, duration: seconds, requests });
  const after = processCpuMicros(server.running.pid);
  clearTimeout(scrape);
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0) throw new Error(`${requests[0].path}: ${failures} failed requests`);
  const total = result.requests.total;
  return {
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    cpuMicrosPerRequest:
      before === undefined || after === undefined || total === 0 ? null : (after - before) / total,
    loadAverage: loadavg()[0],
    requestsSent: total,
  };
}

/** The same load for `seconds`, not measured: what warms a server up. Resolves with its count. */
export async function warmUp(server, requests, { seconds, load }) {
  const result = await autocannon({ url: server.base, ...load, duration: seconds, requests });
  return result.requests.total;
}

/**
 * The drivers asked for (`wanted`: names, every one by default): PGlite in a data directory of
 * its own, and PostgreSQL when `FOLLOWUP_TEST_DATABASE_URL` is set, in a database of its own.
 * Each has `target` (what a server process opens), `open()` (the database, to seed it),
 * `sideTarget()` (what one server of two running at once opens: a copy of the seeded data
 * directory on PGlite, which one process at a time may open, and the same database on
 * PostgreSQL; `release()` removes the copy) and `cleanup()`.
 */
export function drivers(wanted) {
  const list = [];
  const isWanted = (name) => wanted === undefined || wanted.includes(name);
  if (isWanted('pglite')) {
    const dataDir = mkdtempSync(join(tmpdir(), 'followup-bench-observability-'));
    list.push({
      name: 'pglite',
      target: dataDir,
      open: () => openPGliteDatabase({ dataDir }),
      sideTarget: () => {
        const copy = mkdtempSync(join(tmpdir(), 'followup-bench-observability-side-'));
        cpSync(dataDir, copy, { recursive: true });
        return { target: copy, release: () => rmSync(copy, { recursive: true, force: true }) };
      },
      cleanup: async () => rmSync(dataDir, { recursive: true, force: true }),
    });
  }
  const url = process.env.FOLLOWUP_TEST_DATABASE_URL;
  if (url && isWanted('postgres')) {
    const scratch = scratchPostgresDatabase(url, 'followup_bench');
    list.push({
      name: 'postgres',
      target: scratch.url,
      open: async () => {
        await scratch.create();
        return openPostgresDatabase({ connectionString: scratch.url });
      },
      sideTarget: () => ({ target: scratch.url, release: () => {} }),
      cleanup: () => scratch.drop(),
    });
  }
  return list;
}

/**
 * What the spans counted mean, and how many the receiver counted per request the traced side
 * answered on each driver of `run` (its median over the rounds or pairs).
 */
export function spansNote(run) {
  return [
    '',
    'Each request makes its server span and one per statement (with the token cached, about two',
    "a request here); fewer counted than made means the SDK's queue (2,048 spans by default,",
    '`OTEL_BSP_MAX_QUEUE_SIZE`) overflowed and dropped spans, so exporting cost less than it would.',
    '',
    ...run.results.map(
      ({ driver, spansPerRequest }) =>
        `Spans the receiver counted per request on ${driver} (${SIDE_TITLES.tracing}, list and create together, median of the ${run.mode === 'paired' ? 'pairs' : 'rounds'}): ${spansPerRequest.toFixed(2)}.`,
    ),
  ];
}

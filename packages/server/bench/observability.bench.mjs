#!/usr/bin/env node
// What metrics and traces cost: the list and create benchmarks of server.bench.mjs (the built
// server in a process of its own, autocannon on loopback, 20 connections, 64 tokens) on three
// sides: off (neither), metrics (BENCH_METRICS=1 of server-process.mjs, as metrics.bench.mjs runs
// it: scraped once per measure), metrics + tracing (BENCH_TRACING=1 as well, the process
// started with OTEL_TRACES_EXPORTER=otlp, OTEL_EXPORTER_OTLP_PROTOCOL=http/json and
// OTEL_EXPORTER_OTLP_ENDPOINT at an OTLP/HTTP receiver this process runs, which answers 200 and
// counts the spans: exporting costs the server what it costs against a collector, the
// collector's own work aside), and off again: a control, a second server without either, whose
// difference from off is the machine's noise, the least a difference must exceed to be a cost.
// The sides alternate in one run, their order rotating each round,
// a fresh server process for each side of a round (a PGlite data directory belongs to one process
// at a time), warmed up (BENCH_WARMUP seconds of the same load, not counted) before each measure.
// The machine may be shared: only the ratios against off mean something, and the load average
// is recorded beside them. On PGlite, and on PostgreSQL when FOLLOWUP_TEST_DATABASE_URL is set (a
// database of its own, dropped afterwards). Writes bench/results-observability.md and .json.
// BENCH_SECONDS (default 4), BENCH_WARMUP (default 3), BENCH_ROUNDS (default 8, a multiple of
// the four sides so that each runs first, second, third and fourth as often), BENCH_CONTACTS (default
// 20000), BENCH_DRIVERS=pglite or postgres. BENCH_RATE=N: every side is sent N requests a second
// (autocannon's overallRate) rather than as many as it answers, so that the sides' CPU per
// request is compared at one throughput (it falls as throughput rises); N must be below what
// every side answers, which the throughput columns then show.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { machineDescription, median, processCpuMicros } from '../../../scripts/bench/measure.mjs';
import { migrate, openPGliteDatabase, openPostgresDatabase } from '../dist/index.js';
import { issueRoleTokens, seedContacts } from './bench-data.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 20_000);
const DRIVERS = process.env.BENCH_DRIVERS?.split(',');
const RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : undefined;
/** The load's options beside its requests: as many as answered, or BENCH_RATE a second. */
const LOAD = { connections: 20, ...(RATE ? { overallRate: RATE } : {}) };
const TOKENS = 64;
const here = (path) => fileURLToPath(new URL(path, import.meta.url));

/** The sides of a round, in the order of the first round; the next ones rotate it. */
const SIDES = ['off', 'metrics', 'tracing', 'control'];
const SIDE_TITLES = {
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
async function startSpanCounter() {
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

async function startServer(target, side, receiver) {
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

async function stopServer({ running }) {
  if (running.exitCode !== null) return;
  const exited = once(running, 'exit');
  running.kill('SIGTERM');
  await exited;
}

async function measure(server, requests) {
  const warmup = await autocannon({
    url: server.base,
    ...LOAD,
    duration: WARMUP,
    requests,
  });
  // One scrape during the measure.
  const scrape = server.metricsUrl
    ? setTimeout(
        () =>
          fetch(server.metricsUrl)
            .then((r) => r.text())
            .catch(() => {}),
        1_000,
      )
    : undefined;
  const before = processCpuMicros(server.running.pid);
  const result = await autocannon({
    url: server.base,
    ...LOAD,
    duration: SECONDS,
    requests,
  });
  const after = processCpuMicros(server.running.pid);
  clearTimeout(scrape);
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0) throw new Error(`${requests[0].path}: ${failures} failed requests`);
  const total = result.requests.total;
  return {
    sample: {
      requestsPerSecond: result.requests.average,
      p99Ms: result.latency.p99,
      cpuMicrosPerRequest:
        before === undefined || after === undefined || total === 0
          ? null
          : (after - before) / total,
      loadAverage: loadavg()[0],
    },
    requestsSent: warmup.requests.total + total,
  };
}

async function benchDriver(driver, receiver) {
  const database = await driver.open();
  await migrate(database);
  await seedContacts(database, CONTACTS);
  const tokens = await issueRoleTokens(database, { prefix: 'bench', perRole: TOKENS });
  await database.close();
  const auth = (token) => ({ authorization: `Bearer ${token}` });
  const scenarios = {
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
  const samples = {};
  for (const key of Object.keys(scenarios)) {
    samples[key] = Object.fromEntries(SIDES.map((side) => [side, []]));
  }
  // Spans the receiver counted per request the traced servers answered (warm-ups included): what
  // was exported, below what was made if the SDK's queue overflowed and dropped some.
  const spansPerRequest = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = SIDES.map((_, index) => SIDES[(index + round) % SIDES.length]);
    for (const side of order) {
      const spansBefore = receiver.counted().spans;
      let requestsSent = 0;
      const server = await startServer(driver.target, side, receiver);
      try {
        for (const [key, requests] of Object.entries(scenarios)) {
          const measured = await measure(server, requests);
          samples[key][side].push(measured.sample);
          requestsSent += measured.requestsSent;
        }
        if (server.metricsUrl) {
          const text = await (await fetch(server.metricsUrl)).text();
          if (!text.includes('followup_http_requests_total{method="POST",route="/api/contacts"')) {
            throw new Error('The metrics did not count the requests.');
          }
        }
      } finally {
        // The server exports what it still holds on SIGTERM, before it exits.
        await stopServer(server);
      }
      if (side === 'tracing') {
        const spans = receiver.counted().spans - spansBefore;
        if (spans === 0) throw new Error('The traced server exported no span.');
        spansPerRequest.push(spans / requestsSent);
      }
    }
    console.log(`${driver.name}: round ${round + 1} of ${ROUNDS} done`);
  }
  await driver.cleanup();
  const rows = {};
  for (const key of Object.keys(samples)) {
    const of = (side, field) => median(samples[key][side].map((sample) => sample[field]));
    const row = { rounds: samples[key] };
    for (const side of SIDES) {
      row[side] = {
        requestsPerSecond: of(side, 'requestsPerSecond'),
        cpuMicrosPerRequest: of(side, 'cpuMicrosPerRequest'),
        p99Ms: of(side, 'p99Ms'),
      };
    }
    row.ratios = {};
    for (const side of SIDES.slice(1)) {
      row.ratios[side] = {
        throughput: row[side].requestsPerSecond / row.off.requestsPerSecond,
        cpu: row[side].cpuMicrosPerRequest / row.off.cpuMicrosPerRequest,
      };
    }
    rows[key] = row;
  }
  return { driver: driver.name, spansPerRequest: median(spansPerRequest), rows };
}

function drivers() {
  const list = [];
  const wanted = (name) => DRIVERS === undefined || DRIVERS.includes(name);
  if (wanted('pglite')) {
    const dataDir = mkdtempSync(join(tmpdir(), 'followup-bench-observability-'));
    list.push({
      name: 'pglite',
      target: dataDir,
      open: () => openPGliteDatabase({ dataDir }),
      cleanup: async () => rmSync(dataDir, { recursive: true, force: true }),
    });
  }
  const url = process.env.FOLLOWUP_TEST_DATABASE_URL;
  if (url && wanted('postgres')) {
    const name = `followup_bench_${randomBytes(4).toString('hex')}`;
    const benchUrl = new URL(url);
    benchUrl.pathname = `/${name}`;
    const admin = async (sql) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(sql);
      } finally {
        await client.end();
      }
    };
    list.push({
      name: 'postgres',
      target: benchUrl.href,
      open: async () => {
        await admin(`CREATE DATABASE ${name}`);
        return openPostgresDatabase({ connectionString: benchUrl.href });
      },
      cleanup: () => admin(`DROP DATABASE ${name} WITH (FORCE)`),
    });
  }
  return list;
}

const receiver = await startSpanCounter();
const results = [];
try {
  for (const driver of drivers()) results.push(await benchDriver(driver, receiver));
} finally {
  await receiver.close();
}
const loadAverages = results.flatMap(({ rows }) =>
  Object.values(rows).flatMap(({ rounds }) =>
    Object.values(rounds).flatMap((sides) => sides.map((sample) => sample.loadAverage)),
  ),
);
const run = {
  machine: machineDescription(),
  loadAverage: { min: Math.min(...loadAverages), max: Math.max(...loadAverages) },
  seconds: SECONDS,
  warmupSeconds: WARMUP,
  rounds: ROUNDS,
  requestsPerSecondSent: RATE ?? null,
  contacts: CONTACTS,
  malformedTraceBodies: receiver.counted().malformed,
  at: new Date().toISOString(),
  results,
};
writeFileSync(here('./results-observability.json'), `${JSON.stringify(run, null, 2)}\n`);
const percent = (ratio) => `${ratio >= 1 ? '+' : '−'}${Math.abs((ratio - 1) * 100).toFixed(1)} %`;
const lines = [
  '# What metrics and traces cost',
  '',
  'Written by `bench/observability.bench.mjs` (`npm run bench:observability -w @followup/server`,',
  'after a build). The list and create benchmarks of `server.bench.mjs` on four sides: off,',
  'metrics (`createServerMetrics` wired as `start --metrics-port` wires it, the listener scraped',
  'once per measure), metrics + tracing (the OpenTelemetry Node SDK as `start` loads it, with',
  '`OTEL_TRACES_EXPORTER=otlp`, `OTEL_EXPORTER_OTLP_PROTOCOL=http/json` and the endpoint of an',
  "OTLP receiver in the benchmark's process that answers 200 and counts the spans; the SDK's",
  'default batching) and off again (a control: a second server with neither), alternating in one',
  'run with the order rotating each round, a fresh server process for each side of a round,',
  `warmed up ${WARMUP} s before each measure; medians of the rounds. Throughput moves with the`,
  'load of a shared machine, and the CPU time per request of the server process with its',
  'throughput (fewer requests a turn of the event loop share less of its fixed work): off again',
  "against off is the machine's noise, and a side's change smaller than it is no measured cost.",
  'A positive change in CPU beyond it is what the side costs against off.',
  '',
  `Machine: ${run.machine}, load average (1 min) ${run.loadAverage.min.toFixed(1)} to ${run.loadAverage.max.toFixed(1)} during the measures. ${CONTACTS} contacts, ${ROUNDS} rounds of ${SECONDS} s per side and scenario, ${RATE ? `${RATE} requests a second sent to every side (BENCH_RATE)` : 'as many requests as each side answers'}, ${run.at}.`,
  '',
  `| Driver | Scenario | ${[
    ...SIDES.map((side) => `req/s ${SIDE_TITLES[side]}`),
    ...SIDES.slice(1).map((side) => `throughput ${SIDE_TITLES[side]}/off`),
    ...SIDES.map((side) => `CPU µs/req ${SIDE_TITLES[side]}`),
    ...SIDES.slice(1).map((side) => `CPU ${SIDE_TITLES[side]}/off`),
  ].join(' | ')} |`,
  `| --- | --- |${' ---: |'.repeat(SIDES.length * 4 - 2)}`,
];
for (const { driver, rows } of results) {
  for (const [key, row] of Object.entries(rows)) {
    const cells = [
      driver,
      key,
      ...SIDES.map((side) => row[side].requestsPerSecond.toFixed(0)),
      ...SIDES.slice(1).map((side) => percent(row.ratios[side].throughput)),
      ...SIDES.map((side) => row[side].cpuMicrosPerRequest.toFixed(0)),
      ...SIDES.slice(1).map((side) => percent(row.ratios[side].cpu)),
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
}
lines.push(
  '',
  'Each request makes its server span and one per statement (with the token cached, about two',
  "a request here); fewer counted than made means the SDK's queue (2,048 spans by default,",
  '`OTEL_BSP_MAX_QUEUE_SIZE`) overflowed and dropped spans, so exporting cost less than it would.',
  '',
);
for (const { driver, spansPerRequest } of results) {
  lines.push(
    `Spans the receiver counted per request on ${driver} (${SIDE_TITLES.tracing}, list and create together, median of the rounds): ${spansPerRequest.toFixed(2)}.`,
  );
}
writeFileSync(here('./results-observability.md'), `${lines.join('\n')}\n`);
console.log(lines.join('\n'));

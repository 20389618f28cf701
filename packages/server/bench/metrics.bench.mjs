#!/usr/bin/env node
// What the Prometheus metrics cost: the list and create benchmarks of server.bench.mjs (the
// built server in a process of its own, autocannon on loopback, 20 connections, 64 tokens) with
// metrics off and on (BENCH_METRICS=1 of server-process.mjs: the registry, the request hook, the
// delivery observer and the metrics listener, scraped once per measure: more often than a
// Prometheus scraping every 15 s would), alternating off and on in one run, a fresh server
// process for each side of a round (a PGlite data directory belongs to one process at a time),
// warmed up (BENCH_WARMUP seconds of the same load, not counted) before each measure, so that
// what is measured is the steady state, not the compilation of a cold process. The machine may be shared: only the
// ratios on/off mean something. On PGlite, and on PostgreSQL when FOLLOWUP_TEST_DATABASE_URL is
// set (a database of its own, dropped afterwards). Writes bench/results-metrics.md and .json.
// BENCH_SECONDS (default 4), BENCH_WARMUP (default 3), BENCH_ROUNDS (default 4), BENCH_CONTACTS
// (default 20000),
// BENCH_DRIVERS=pglite or postgres.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { machineDescription, median, processCpuMicros } from '../../../scripts/bench/measure.mjs';
import { migrate } from '../dist/index.js';
import { issueRoleTokens, seedContacts } from './bench-data.mjs';
import { drivers } from './observability-sides.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 20_000);
const DRIVERS = process.env.BENCH_DRIVERS?.split(',');
const CONNECTIONS = 20;
const TOKENS = 64;
const here = (path) => fileURLToPath(new URL(path, import.meta.url));

async function startServer(target, metricsOn) {
  const running = spawn(process.execPath, [here('./server-process.mjs'), target], {
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, BENCH_METRICS: metricsOn ? '1' : '0' },
  });
  const lines = createInterface({ input: running.stdout })[Symbol.asyncIterator]();
  const base = (await lines.next()).value;
  const metricsUrl = metricsOn ? (await lines.next()).value : undefined;
  return { running, base, metricsUrl };
}

async function stopServer({ running }) {
  if (running.exitCode !== null) return;
  const exited = once(running, 'exit');
  running.kill('SIGTERM');
  await exited;
}

async function measure(server, requests) {
  await autocannon({ url: server.base, connections: CONNECTIONS, duration: WARMUP, requests });
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
    connections: CONNECTIONS,
    duration: SECONDS,
    requests,
  });
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
  };
}

async function benchDriver(driver) {
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
  const samples = { list: { off: [], on: [] }, create: { off: [], on: [] } };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
    for (const side of order) {
      const server = await startServer(driver.target, side === 'on');
      try {
        for (const [key, requests] of Object.entries(scenarios)) {
          samples[key][side].push(await measure(server, requests));
        }
        if (server.metricsUrl) {
          const text = await (await fetch(server.metricsUrl)).text();
          if (!text.includes('followup_http_requests_total{method="POST",route="/api/contacts"')) {
            throw new Error('The metrics did not count the requests.');
          }
        }
      } finally {
        await stopServer(server);
      }
    }
    console.log(`${driver.name}: round ${round + 1} of ${ROUNDS} done`);
  }
  await driver.cleanup();
  const rows = {};
  for (const key of Object.keys(samples)) {
    const of = (side, field) => median(samples[key][side].map((sample) => sample[field]));
    rows[key] = {
      off: {
        requestsPerSecond: of('off', 'requestsPerSecond'),
        cpuMicrosPerRequest: of('off', 'cpuMicrosPerRequest'),
        p99Ms: of('off', 'p99Ms'),
      },
      on: {
        requestsPerSecond: of('on', 'requestsPerSecond'),
        cpuMicrosPerRequest: of('on', 'cpuMicrosPerRequest'),
        p99Ms: of('on', 'p99Ms'),
      },
      rounds: samples[key],
    };
    rows[key].throughputRatio = rows[key].on.requestsPerSecond / rows[key].off.requestsPerSecond;
    rows[key].cpuRatio = rows[key].on.cpuMicrosPerRequest / rows[key].off.cpuMicrosPerRequest;
  }
  return { driver: driver.name, rows };
}

const results = [];
for (const driver of drivers(DRIVERS)) results.push(await benchDriver(driver));
const run = {
  machine: machineDescription(),
  seconds: SECONDS,
  warmupSeconds: WARMUP,
  rounds: ROUNDS,
  contacts: CONTACTS,
  at: new Date().toISOString(),
  results,
};
writeFileSync(here('./results-metrics.json'), `${JSON.stringify(run, null, 2)}\n`);
const percent = (ratio) => `${((ratio - 1) * 100).toFixed(1)} %`;
const lines = [
  '# What the Prometheus metrics cost',
  '',
  'Written by `bench/metrics.bench.mjs` (`node bench/metrics.bench.mjs` in `packages/server`,',
  'after a build). The list and create benchmarks of `server.bench.mjs`, metrics off and on',
  '(`createServerMetrics` wired as `start --metrics-port` wires it, the listener scraped once',
  'per measure), alternating in one run, a fresh server process for each side of a round,',
  `warmed up ${WARMUP} s before each measure; medians of the rounds.`,
  'Throughput moves with the load of a shared machine; CPU time per request of the server',
  'process holds up better. A positive change in CPU is what metrics cost.',
  '',
  `Machine: ${run.machine}. ${CONTACTS} contacts, ${ROUNDS} rounds of ${SECONDS} s per side and scenario, ${run.at}.`,
  '',
  '| Driver | Scenario | req/s off | req/s on | throughput on/off | CPU µs/req off | CPU µs/req on | CPU on/off |',
  '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
];
for (const { driver, rows } of results) {
  for (const [key, row] of Object.entries(rows)) {
    lines.push(
      `| ${driver} | ${key} | ${row.off.requestsPerSecond.toFixed(0)} | ${row.on.requestsPerSecond.toFixed(0)} | ${percent(row.throughputRatio)} | ${row.off.cpuMicrosPerRequest.toFixed(0)} | ${row.on.cpuMicrosPerRequest.toFixed(0)} | ${percent(row.cpuRatio)} |`,
    );
  }
}
writeFileSync(here('./results-metrics.md'), `${lines.join('\n')}\n`);
console.log(lines.join('\n'));

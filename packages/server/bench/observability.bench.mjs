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
// database of its own, dropped afterwards).
// BENCH_SECONDS (default 4), BENCH_WARMUP (default 3), BENCH_ROUNDS (default 8, a multiple of
// the four sides so that each runs first, second, third and fourth as often), BENCH_CONTACTS (default
// 20000), BENCH_DRIVERS=pglite or postgres. BENCH_RATE=N: every side is sent N requests a second
// (autocannon's overallRate) rather than as many as it answers, so that the sides' CPU per
// request is compared at one throughput (it falls as throughput rises); N must be below what
// every side answers, which the throughput columns then show.
//
// BENCH_PAIRED=1: the paired mode (observability-paired.mjs), which a shared machine's noise does
// not drown: two sides at the same time, off and one other (metrics, metrics + tracing, or off
// again), each its own server process under its own load, both loads started together over the
// same seconds; each pair yields the other side's throughput and CPU per request over off's, and
// the results are the medians and quartiles of BENCH_ROUNDS pairs of each side (default 12, even
// so that each side of a pair is started first as often). On PGlite each server opens its own
// copy of the seeded data directory. Writes bench/results-observability.md and .json; the mode
// above writes bench/results-observability-sequential.md and .json. BENCH_RATE applies to each
// server of a pair.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { machineDescription, median } from '../../../scripts/bench/measure.mjs';
import { benchDriverPaired, pairedReport } from './observability-paired.mjs';
import {
  checkMetricsCounted,
  drivers,
  measureLoad,
  SIDE_TITLES,
  seedScenarios,
  spansNote,
  startServer,
  startSpanCounter,
  stopServer,
  warmUp,
} from './observability-sides.mjs';

const PAIRED = process.env.BENCH_PAIRED === '1';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (PAIRED ? 12 : 8));
const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 20_000);
const DRIVERS = process.env.BENCH_DRIVERS?.split(',');
const RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : undefined;
/** The load's options beside its requests: as many as answered, or BENCH_RATE a second. */
const LOAD = { connections: 20, ...(RATE ? { overallRate: RATE } : {}) };
const TOKENS = 64;
const here = (path) => fileURLToPath(new URL(path, import.meta.url));

/** The sides of a round, in the order of the first round; the next ones rotate it. */
const SIDES = ['off', 'metrics', 'tracing', 'control'];

async function measure(server, requests) {
  const warmed = await warmUp(server, requests, { seconds: WARMUP, load: LOAD });
  const { requestsSent, ...sample } = await measureLoad(server, requests, {
    seconds: SECONDS,
    load: LOAD,
  });
  return { sample, requestsSent: warmed + requestsSent };
}

async function benchDriver(driver, receiver) {
  const scenarios = await seedScenarios(driver, { contacts: CONTACTS, tokens: TOKENS });
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
      const server = await startServer({ target: driver.target, side, receiver });
      try {
        for (const [key, requests] of Object.entries(scenarios)) {
          const measured = await measure(server, requests);
          samples[key][side].push(measured.sample);
          requestsSent += measured.requestsSent;
        }
        await checkMetricsCounted(server);
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

const percent = (ratio) => `${ratio >= 1 ? '+' : '−'}${Math.abs((ratio - 1) * 100).toFixed(1)} %`;

/** The Markdown of a run of the sides one after another. */
function sequentialReport(run) {
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
    `warmed up ${run.warmupSeconds} s before each measure; medians of the rounds. Throughput moves with the`,
    'load of a shared machine, and the CPU time per request of the server process with its',
    'throughput (fewer requests a turn of the event loop share less of its fixed work): off again',
    "against off is the machine's noise, and a side's change smaller than it is no measured cost.",
    'A positive change in CPU beyond it is what the side costs against off.',
    '',
    `Machine: ${run.machine}, load average (1 min) ${run.loadAverage.min.toFixed(1)} to ${run.loadAverage.max.toFixed(1)} during the measures. ${run.contacts} contacts, ${run.rounds} rounds of ${run.seconds} s per side and scenario, ${run.requestsPerSecondSent ? `${run.requestsPerSecondSent} requests a second sent to every side (BENCH_RATE)` : 'as many requests as each side answers'}, ${run.at}.`,
    '',
    `| Driver | Scenario | ${[
      ...SIDES.map((side) => `req/s ${SIDE_TITLES[side]}`),
      ...SIDES.slice(1).map((side) => `throughput ${SIDE_TITLES[side]}/off`),
      ...SIDES.map((side) => `CPU µs/req ${SIDE_TITLES[side]}`),
      ...SIDES.slice(1).map((side) => `CPU ${SIDE_TITLES[side]}/off`),
    ].join(' | ')} |`,
    `| --- | --- |${' ---: |'.repeat(SIDES.length * 4 - 2)}`,
  ];
  for (const { driver, rows } of run.results) {
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
  return lines;
}

if (PAIRED && ROUNDS % 2 !== 0) {
  throw new Error(
    'BENCH_ROUNDS must be even in the paired mode, so that each side starts first as often.',
  );
}
const receiver = await startSpanCounter();
const results = [];
try {
  for (const driver of drivers(DRIVERS)) {
    if (!PAIRED) {
      results.push(await benchDriver(driver, receiver));
      continue;
    }
    const scenarios = await seedScenarios(driver, { contacts: CONTACTS, tokens: TOKENS });
    try {
      results.push(
        await benchDriverPaired({
          driver,
          scenarios,
          receiver,
          rounds: ROUNDS,
          seconds: SECONDS,
          warmup: WARMUP,
          load: LOAD,
        }),
      );
    } finally {
      await driver.cleanup();
    }
  }
} finally {
  await receiver.close();
}
/** Every `loadAverage` recorded beside a sample, wherever the mode keeps its samples. */
function loadAveragesIn(value) {
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === 'loadAverage' && typeof inner === 'number' ? [inner] : loadAveragesIn(inner),
  );
}
const loadAverages = loadAveragesIn(results);
const run = {
  mode: PAIRED ? 'paired' : 'sequential',
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
const lines = [...(PAIRED ? pairedReport(run) : sequentialReport(run)), ...spansNote(run)];
const name = PAIRED ? 'results-observability' : 'results-observability-sequential';
writeFileSync(here(`./${name}.json`), `${JSON.stringify(run, null, 2)}\n`);
writeFileSync(here(`./${name}.md`), `${lines.join('\n')}\n`);
console.log(lines.join('\n'));

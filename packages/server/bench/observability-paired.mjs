// The paired mode of observability.bench.mjs (BENCH_PAIRED=1): two sides at the same time, so
// that what the machine does to one it does to the other. Each pair is two server processes,
// off and one other side (metrics, metrics + tracing, or off again: the control), started one
// after the other, warmed up together, then measured together: two loads started at once, over
// the same seconds, each sending to its own server. What the pair yields is the other side's
// throughput and CPU time per request divided by off's, measured in the same seconds; the medians
// of many pairs, and their quartiles, are the results. The control's spread is the noise floor.
import { quantile } from '../../../scripts/bench/measure.mjs';
import {
  checkMetricsCounted,
  measureLoad,
  SIDE_TITLES,
  startServer,
  stopServer,
  warmUp,
} from './observability-sides.mjs';

/** The sides measured against off, each in pairs of its own; `control` is off again. */
export const PAIRED_SIDES = ['metrics', 'tracing', 'control'];

/** The median and the quartiles of some numbers. */
function spread(values) {
  return {
    median: quantile(values, 0.5),
    lower: quantile(values, 0.25),
    upper: quantile(values, 0.75),
  };
}

/**
 * One pair: off and `side`, each on a target of its own, started in `order` (`order[0]` first
 * and its load first in the `Promise.all`), then for each scenario a warm-up of both together
 * and a measure of both together. Resolves with both sides' samples per scenario, and the
 * requests the traced side answered (warm-ups included) with the spans the receiver counted
 * meanwhile.
 */
async function runPair({ driver, order, scenarios, receiver, seconds, warmup, load }) {
  const targets = {};
  const servers = {};
  let tracedRequests = 0;
  try {
    for (const name of order) {
      targets[name] = driver.sideTarget();
      servers[name] = await startServer({
        target: targets[name].target,
        side: name,
        receiver,
      });
    }
    const samples = {};
    for (const [key, requests] of Object.entries(scenarios)) {
      const warmed = await Promise.all(
        order.map((name) => warmUp(servers[name], requests, { seconds: warmup, load })),
      );
      const measured = await Promise.all(
        order.map((name) => measureLoad(servers[name], requests, { seconds, load })),
      );
      samples[key] = Object.fromEntries(order.map((name, index) => [name, measured[index]]));
      const traced = order.indexOf('tracing');
      if (traced >= 0) tracedRequests += warmed[traced] + measured[traced].requestsSent;
    }
    for (const name of order) await checkMetricsCounted(servers[name]);
    return { samples, tracedRequests };
  } finally {
    // The traced server exports what it still holds on SIGTERM, before it exits.
    for (const name of order) if (servers[name]) await stopServer(servers[name]);
    for (const name of order) targets[name]?.release();
  }
}

/**
 * Runs `rounds` rounds on one driver, each a pair of off and every side of {@link PAIRED_SIDES};
 * the pairs' order rotates from round to round, and which of a pair's two sides is started (and
 * loaded) first alternates, so that neither is favoured. Resolves with every pair's samples and
 * ratios, and per scenario and side the medians and quartiles of the ratios against off.
 */
export async function benchDriverPaired({
  driver,
  scenarios,
  receiver,
  rounds,
  seconds,
  warmup,
  load,
}) {
  const pairs = Object.fromEntries(
    Object.keys(scenarios).map((key) => [
      key,
      Object.fromEntries(PAIRED_SIDES.map((side) => [side, []])),
    ]),
  );
  const spansPerRequest = [];
  for (let round = 0; round < rounds; round++) {
    for (let index = 0; index < PAIRED_SIDES.length; index++) {
      const side = PAIRED_SIDES[(index + round) % PAIRED_SIDES.length];
      const order = round % 2 === 0 ? ['off', side] : [side, 'off'];
      // The control pair is two bare servers; `control` names the second one.
      const spansBefore = receiver.counted().spans;
      const { samples, tracedRequests } = await runPair({
        driver,
        order,
        scenarios,
        receiver,
        seconds,
        warmup,
        load,
      });
      if (tracedRequests > 0) {
        const spans = receiver.counted().spans - spansBefore;
        if (spans === 0) throw new Error('The traced server exported no span.');
        spansPerRequest.push(spans / tracedRequests);
      }
      for (const [key, { off, [side]: other }] of Object.entries(samples)) {
        pairs[key][side].push({
          startedFirst: order[0],
          off,
          [side]: other,
          throughput: other.requestsPerSecond / off.requestsPerSecond,
          cpu:
            other.cpuMicrosPerRequest === null || off.cpuMicrosPerRequest === null
              ? null
              : other.cpuMicrosPerRequest / off.cpuMicrosPerRequest,
        });
      }
    }
    console.log(`${driver.name}: round ${round + 1} of ${rounds} done (paired)`);
  }
  const rows = {};
  for (const [key, bySide] of Object.entries(pairs)) {
    rows[key] = {};
    for (const [side, list] of Object.entries(bySide)) {
      rows[key][side] = {
        pairs: list,
        requestsPerSecond: {
          off: spread(list.map((pair) => pair.off.requestsPerSecond)).median,
          [side]: spread(list.map((pair) => pair[side].requestsPerSecond)).median,
        },
        cpuMicrosPerRequest: {
          off: spread(list.map((pair) => pair.off.cpuMicrosPerRequest)).median,
          [side]: spread(list.map((pair) => pair[side].cpuMicrosPerRequest)).median,
        },
        throughput: spread(list.map((pair) => pair.throughput)),
        cpu: spread(list.filter((pair) => pair.cpu !== null).map((pair) => pair.cpu)),
      };
    }
  }
  return { driver: driver.name, spansPerRequest: quantile(spansPerRequest, 0.5), rows };
}

const percent = (ratio) => `${ratio >= 1 ? '+' : '−'}${Math.abs((ratio - 1) * 100).toFixed(1)} %`;
const withSpread = ({ median, lower, upper }) =>
  `${percent(median)} (${percent(lower)} to ${percent(upper)})`;

/** The Markdown of a paired run: the method, then a row per driver, scenario and side. */
export function pairedReport(run) {
  const lines = [
    '# What metrics and traces cost, measured in pairs',
    '',
    'Written by `bench/observability.bench.mjs` in its paired mode (`BENCH_PAIRED=1 npm run',
    'bench:observability -w @followup/server`, after a build). The list and create benchmarks of',
    '`server.bench.mjs` (the built server in a process of its own, autocannon on loopback, 20',
    'connections per server, 64 tokens) on two servers **at the same time**: off, and one of',
    'metrics (as `start --metrics-port` runs them, scraped once per measure), metrics + tracing (the',
    'OpenTelemetry Node SDK as `start` loads it, exporting OTLP/HTTP JSON to a receiver in the',
    "benchmark's process that answers 200 and counts the spans) or off again (the control). Each",
    'pair is two fresh server processes (on PGlite each on its own copy of the one seeded data',
    'directory; on PostgreSQL both on one database), warmed up together, then measured together:',
    'two loads started at once, each against its own server, over the same seconds. Whatever else',
    'the machine does in those seconds (other processes, the load generator, the database, CPU',
    "frequency) it does to both sides, so each pair's ratio, the side's throughput and its",
    "server process's CPU time per request (from `/proc`) divided by off's, cancels it; across",
    'sequential runs the same machine moves throughput by a third. The pairs rotate and which side',
    'of a pair is started and loaded first alternates. The tables give the median of the pairs and,',
    'in brackets, their interquartile range (the middle half of the pairs). **Off again against',
    "off is the noise floor**: the spread two identical servers show; a side's median outside the",
    "control's range is a measured cost, one inside it is no cost that this run can see.",
    'A side with metrics is scraped once a measure, more often than Prometheus would (every 15 s',
    "or 1 min), and the scrape's CPU is counted in that measure: its gauges are read by two",
    'queries, which cost the server 10 to 60 ms on PGlite (where they run in its process) and',
    'about 5 ms on PostgreSQL: of a 4 s measure on a whole core, 0.1 % to 1.5 %, more where the',
    'server gets less of a core.',
    '',
    `Machine: ${run.machine}, load average (1 min) ${run.loadAverage.min.toFixed(1)} to ${run.loadAverage.max.toFixed(1)} during the measures. ${run.contacts} contacts, ${run.rounds} pairs of each side and ${run.seconds} s measures after ${run.warmupSeconds} s of warm-up, ${run.requestsPerSecondSent ? `${run.requestsPerSecondSent} requests a second sent to each server (BENCH_RATE): compare CPU per request` : 'as many requests as each server answers (saturating: compare throughput, what a user loses)'}, ${run.at}.`,
    '',
    '| Driver | Scenario | Side | req/s off | req/s side | throughput side/off | CPU µs/req off | CPU µs/req side | CPU side/off |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const { driver, rows } of run.results) {
    for (const [key, bySide] of Object.entries(rows)) {
      for (const side of PAIRED_SIDES) {
        const row = bySide[side];
        const cells = [
          driver,
          key,
          SIDE_TITLES[side],
          row.requestsPerSecond.off.toFixed(0),
          row.requestsPerSecond[side].toFixed(0),
          withSpread(row.throughput),
          row.cpuMicrosPerRequest.off.toFixed(0),
          row.cpuMicrosPerRequest[side].toFixed(0),
          withSpread(row.cpu),
        ];
        lines.push(`| ${cells.join(' | ')} |`);
      }
    }
  }
  lines.push(
    '',
    'The req/s and µs columns are medians of each side alone, for scale; two servers share the',
    'machine, so each answers less than one alone would. Only the ratios are compared.',
  );
  return lines;
}

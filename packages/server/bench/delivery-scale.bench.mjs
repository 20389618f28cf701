#!/usr/bin/env node
// Delivery at scale (`npm run bench:delivery-scale -w @followup/server`, after a build): the
// built `followup-server start` in a process of its own, 10 endpoints subscribed to
// `contact.created` on one receiver process answering 204 at once (delivery-scale-receiver.mjs),
// and contacts created through the API at a steady pace: 20, 50, 100 and 150 a second for 30 s,
// three runs each, every run on fresh data (a new PGlite data directory, or a new PostgreSQL
// database dropped afterwards). For each run: the latency of every webhook, from its create's
// 201 at the client to its arrival at the receiver (both read on this machine's wall clock):
// p50, p95, p99 and max; the p99 of the webhooks of creates from 5 s after the first on (a
// server past its first seconds: a new process runs its code slower until it is compiled, and on
// PGlite that start can leave a backlog that the rest of the run drains); and the backlog 10 s
// after the last create (webhooks still to arrive).
// Then the outage: every receiver down for 40 s while contacts are created at 50 a second (about
// 20,000 deliveries waiting), then back: how long until everything has arrived. The server runs
// with short retries (--delivery-retry-delays, 10 s by default here) so that the outage measures
// draining, not a retry schedule's wait.
//
// On PGlite, and on PostgreSQL when FOLLOWUP_TEST_DATABASE_URL or DATABASE_URL is set. Options
// (after `--` with npm): --rates 50,100 --runs 1 --drivers pglite --seconds 10 to try a subset;
// --outage-seconds, --outage-rate, --no-outage; --endpoints N; --retry-delays LIST;
// --drain-limit SECONDS (the longest wait for every webhook, 180). Writes
// bench/results-delivery-scale.md and .json, saying when the run was a subset.
import { fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { machineDescription, processCpuMicros } from '../../../scripts/bench/measure.mjs';
import {
  createAccountStore,
  migrate,
  openPGliteDatabase,
  openPostgresDatabase,
  runCli,
} from '../dist/index.js';
import { scratchPostgresDatabase } from './drivers.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const FULL = {
  rates: '20,50,100,150',
  runs: '3',
  drivers: 'pglite,postgres',
  seconds: '30',
  endpoints: '10',
  'outage-seconds': '40',
  'outage-rate': '50',
};
const { values: options } = parseArgs({
  options: {
    rates: { type: 'string', default: FULL.rates },
    runs: { type: 'string', default: FULL.runs },
    drivers: { type: 'string', default: FULL.drivers },
    seconds: { type: 'string', default: FULL.seconds },
    endpoints: { type: 'string', default: FULL.endpoints },
    'outage-seconds': { type: 'string', default: FULL['outage-seconds'] },
    'outage-rate': { type: 'string', default: FULL['outage-rate'] },
    'no-outage': { type: 'boolean', default: false },
    'retry-delays': { type: 'string', default: Array.from({ length: 20 }, () => '10s').join(',') },
    'drain-limit': { type: 'string', default: '180' },
  },
});
const positive = (name) => {
  const value = Number(options[name]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} is a positive number.`);
  return value;
};
const RATES = options.rates.split(',').map(Number);
if (RATES.some((rate) => !(rate > 0))) throw new Error('--rates is a list of positive numbers.');
const RUNS = positive('runs');
const SECONDS = positive('seconds');
const ENDPOINTS = positive('endpoints');
const OUTAGE_SECONDS = positive('outage-seconds');
const OUTAGE_RATE = positive('outage-rate');
const DRAIN_LIMIT_MS = positive('drain-limit') * 1000;
const BACKLOG_AFTER_MS = 10_000;
const cli = here('../dist/cli.js');
const wallClock = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const quiet = { write: () => undefined };

/** The storages asked for: each `fresh()` makes new, empty storage for one run. */
function storages() {
  const wanted = options.drivers.split(',');
  const list = [];
  if (wanted.includes('pglite')) {
    list.push({
      name: 'pglite',
      fresh: async () => {
        const dataDir = mkdtempSync(join(tmpdir(), 'followup-scale-'));
        return {
          args: ['--data-dir', dataDir],
          open: () => openPGliteDatabase({ dataDir }),
          cleanup: async () => rmSync(dataDir, { recursive: true, force: true }),
        };
      },
    });
  }
  const url = process.env.FOLLOWUP_TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (wanted.includes('postgres') && !url) {
    console.log('postgres: skipped (set FOLLOWUP_TEST_DATABASE_URL or DATABASE_URL)');
  }
  if (wanted.includes('postgres') && url) {
    list.push({
      name: 'postgres',
      fresh: async () => {
        const scratch = scratchPostgresDatabase(url, 'followup_scale');
        await scratch.create();
        return {
          args: ['--database-url', scratch.url],
          open: () => openPostgresDatabase({ connectionString: scratch.url }),
          cleanup: () => scratch.drop(),
          // The CPU time of the server's connections to the run's database, so far.
          databaseCpuMicros: async () => {
            const client = new pg.Client({ connectionString: url });
            await client.connect();
            try {
              const { rows } = await client.query(
                'SELECT pid FROM pg_stat_activity WHERE datname = $1',
                [scratch.name],
              );
              return rows.reduce((sum, row) => sum + (processCpuMicros(row.pid) ?? 0), 0);
            } finally {
              await client.end();
            }
          },
        };
      },
    });
  }
  return list;
}

/** The receiver process, and a function asking it something over IPC. */
async function startReceiver() {
  const child = fork(here('./delivery-scale-receiver.mjs'), { stdio: 'ignore' });
  const [ready] = await once(child, 'message');
  const ask = async (type) => {
    const answer = new Promise((resolve) => {
      const onMessage = (message) => {
        if (message.type !== type) return;
        child.off('message', onMessage);
        resolve(message);
      };
      child.on('message', onMessage);
    });
    child.send({ type });
    return answer;
  };
  return { port: ready.port, ask, stop: () => child.disconnect() };
}

/** An AGENT token and the endpoints, written before the server starts. */
async function prepare(storage, port) {
  const database = await storage.open();
  try {
    await migrate(database);
    const accounts = createAccountStore({ database });
    const account = await accounts.createAccount({ name: 'scale', role: 'AGENT' });
    const { token } = await accounts.issueToken({ accountId: account.id });
    for (let index = 0; index < ENDPOINTS; index++) {
      const url = `http://127.0.0.1:${port}/hooks/${index}`;
      const code = await runCli(['endpoints', 'add', '--url', url, '--events', 'contact.created'], {
        stdout: quiet,
        stderr: quiet,
        env: {},
        database,
      });
      if (code !== 0) throw new Error('endpoints add failed');
    }
    return token;
  } finally {
    await database.close();
  }
}

async function startServer(storage) {
  const server = spawn(
    process.execPath,
    [
      cli,
      'start',
      '--port',
      '0',
      '--json',
      '--allow-private-endpoints',
      '--rate-limit',
      '0',
      '--delivery-retry-delays',
      options['retry-delays'],
      ...storage.args,
    ],
    { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, DATABASE_URL: '' } },
  );
  const [line] = await once(createInterface({ input: server.stdout }), 'line');
  const { url } = JSON.parse(line);
  return {
    url,
    pid: server.pid,
    stop: async () => {
      if (server.exitCode !== null) return;
      const exited = once(server, 'exit');
      server.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Creates contacts at `rate` a second for `seconds`, each sent at its time whatever the earlier
 * ones' answers (an open loop); resolves with each created contact's 201 time by id.
 */
async function pacedCreates({ url, token, rate, seconds }) {
  const acknowledged = new Map();
  // Refused creates by status (or `error` when no answer came).
  const failed = {};
  const fail = (key) => {
    failed[key] = (failed[key] ?? 0) + 1;
  };
  const total = Math.round(rate * seconds);
  const sent = [];
  const started = performance.now();
  for (let index = 0; index < total; index++) {
    await sleep(started + (index * 1000) / rate - performance.now());
    sent.push(
      fetch(`${url}/api/contacts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ firstName: `Scale ${index}`, lastName: 'Delivery' }),
      })
        .then(async (response) => {
          const at = wallClock();
          const body = await response.json();
          if (response.status === 201) acknowledged.set(body.id, at);
          else fail(response.status);
        })
        .catch(() => {
          fail('error');
        }),
    );
  }
  const endAt = started + seconds * 1000;
  await Promise.all(sent);
  return { acknowledged, failed, endAt };
}

/** Waits until `expected` webhooks arrived or `deadline` (performance.now()) passes. */
async function waitForArrivals(receiver, expected, deadline) {
  for (;;) {
    const { arrived } = await receiver.ask('count');
    if (arrived >= expected || performance.now() >= deadline) return arrived;
    await sleep(100);
  }
}

function percentile(sorted, fraction) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * fraction) - 1)];
}

/** How long after the first create the webhooks of `p99WarmMs` begin: a server's first seconds. */
const WARM_AFTER_MS = 5_000;

/** Latencies from each 201 to each arrival, and the last arrival. */
async function latencies(receiver, acknowledged) {
  const { arrivals } = await receiver.ask('arrivals');
  const firstCreate = Math.min(...acknowledged.values());
  const delays = [];
  const warmDelays = [];
  let lastArrival = Number.NEGATIVE_INFINITY;
  for (const [, contactId, at] of arrivals) {
    const created = acknowledged.get(contactId);
    if (created === undefined) continue;
    delays.push(at - created);
    if (created - firstCreate >= WARM_AFTER_MS) warmDelays.push(at - created);
    lastArrival = Math.max(lastArrival, at);
  }
  delays.sort((a, b) => a - b);
  warmDelays.sort((a, b) => a - b);
  const round = (value) => (value === null ? null : Math.round(value * 10) / 10);
  return {
    arrived: delays.length,
    p50Ms: round(percentile(delays, 0.5)),
    p95Ms: round(percentile(delays, 0.95)),
    p99Ms: round(percentile(delays, 0.99)),
    p99WarmMs: round(percentile(warmDelays, 0.99)),
    maxMs: round(delays.at(-1) ?? null),
    lastArrival,
  };
}

async function paced(driver, rate, run) {
  const storage = await driver.fresh();
  const receiver = await startReceiver();
  let server;
  try {
    const token = await prepare(storage, receiver.port);
    server = await startServer(storage);
    const cpuBefore = processCpuMicros(server.pid);
    const databaseCpuBefore = await storage.databaseCpuMicros?.();
    const { acknowledged, failed, endAt } = await pacedCreates({
      url: server.url,
      token,
      rate,
      seconds: SECONDS,
    });
    const expected = acknowledged.size * ENDPOINTS;
    await sleep(endAt + BACKLOG_AFTER_MS - performance.now());
    const arrivedAfter10s = (await receiver.ask('count')).arrived;
    const arrived = await waitForArrivals(receiver, expected, performance.now() + DRAIN_LIMIT_MS);
    const { duplicates } = await receiver.ask('count');
    const cpuAfter = processCpuMicros(server.pid);
    const databaseCpuAfter = await storage.databaseCpuMicros?.();
    const perDelivery = (before, after) =>
      before === undefined || after === undefined || arrived === 0
        ? undefined
        : Math.round((after - before) / arrived);
    const measured = await latencies(receiver, acknowledged);
    const result = {
      driver: driver.name,
      rate,
      run,
      creates: acknowledged.size,
      failedCreates: failed,
      deliveries: expected,
      backlogAfter10s: expected - arrivedAfter10s,
      missing: expected - arrived,
      duplicates,
      ...measured,
      lastArrival: undefined,
      serverCpuMicrosPerDelivery: perDelivery(cpuBefore, cpuAfter),
      databaseCpuMicrosPerDelivery: perDelivery(databaseCpuBefore, databaseCpuAfter),
    };
    console.log(JSON.stringify(result));
    return result;
  } finally {
    await server?.stop();
    receiver.stop();
    await storage.cleanup();
  }
}

async function outage(driver) {
  const storage = await driver.fresh();
  const receiver = await startReceiver();
  let server;
  try {
    const token = await prepare(storage, receiver.port);
    server = await startServer(storage);
    await receiver.ask('down');
    const { acknowledged, failed } = await pacedCreates({
      url: server.url,
      token,
      rate: OUTAGE_RATE,
      seconds: OUTAGE_SECONDS,
    });
    const expected = acknowledged.size * ENDPOINTS;
    await receiver.ask('up');
    const upAt = wallClock();
    const upAtMonotonic = performance.now();
    const arrived = await waitForArrivals(receiver, expected, upAtMonotonic + DRAIN_LIMIT_MS);
    const { duplicates } = await receiver.ask('count');
    const measured = await latencies(receiver, acknowledged);
    const result = {
      driver: driver.name,
      rate: OUTAGE_RATE,
      outageSeconds: OUTAGE_SECONDS,
      creates: acknowledged.size,
      failedCreates: failed,
      deliveries: expected,
      missing: expected - arrived,
      duplicates,
      drainedSeconds:
        arrived >= expected ? Math.round((measured.lastArrival - upAt) / 100) / 10 : null,
    };
    console.log(JSON.stringify(result));
    return result;
  } finally {
    await server?.stop();
    receiver.stop();
    await storage.cleanup();
  }
}

const loadBefore = loadavg()[0];
const results = { paced: [], outages: [] };
for (const driver of storages()) {
  for (const rate of RATES) {
    for (let run = 1; run <= RUNS; run++) results.paced.push(await paced(driver, rate, run));
  }
  if (!options['no-outage']) results.outages.push(await outage(driver));
}
const loadAfter = loadavg()[0];

const subset = Object.entries(FULL).filter(([name, full]) => options[name] !== full);
const machine = machineDescription();
writeFileSync(
  here('./results-delivery-scale.json'),
  `${JSON.stringify({ machine, options, loadAverage: [loadBefore, loadAfter], results }, null, 2)}\n`,
);
const ms = (value) => (value === null ? '–' : `${value} ms`);
const refused = (failed) => {
  const entries = Object.entries(failed);
  if (entries.length === 0) return '';
  return ` (refused: ${entries.map(([status, count]) => `${count} × ${status}`).join(', ')})`;
};
const lines = [
  '# Delivery at scale',
  '',
  subset.length > 0 || options['no-outage']
    ? `**A subset, not the benchmark's figures** (${[
        ...subset.map(([name]) => `--${name} ${options[name]}`),
        ...(options['no-outage'] ? ['--no-outage'] : []),
      ].join(
        ', ',
      )}): run to show that the script works; the full run is \`npm run bench:delivery-scale -w @followup/server\` on a quiet machine.`
    : 'The full run.',
  '',
  `Machine: ${machine}; 1-minute load average ${loadBefore.toFixed(1)} at the start, ${loadAfter.toFixed(1)} at the end. ${ENDPOINTS} endpoints on one receiver process answering 204 at once, subscribed to \`contact.created\`; contacts created at a steady pace for ${SECONDS} s, each run on fresh data; the server is \`followup-server start\` with \`--delivery-retry-delays ${options['retry-delays']}\` and \`--rate-limit 0\`. Latency: from a create's 201 at the client to the webhook's arrival at the receiver. CPU per delivery: the server process's CPU time (on PGlite the database's too, which runs inside it) and, on PostgreSQL, that of the server's database connections, from the first create until every webhook arrived, over the webhooks that arrived.`,
];
for (const name of [...new Set(results.paced.map((result) => result.driver))]) {
  lines.push(
    '',
    `## ${name === 'pglite' ? 'PGlite' : 'PostgreSQL'}`,
    '',
    '| Creates/s (deliveries/s) | Run | Creates | p50 | p95 | p99 | max | p99 from 5 s on | Backlog 10 s after | Never arrived | Duplicates | Server CPU µs/delivery | Database CPU µs/delivery |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const result of results.paced.filter((entry) => entry.driver === name)) {
    lines.push(
      `| ${result.rate} (${result.rate * ENDPOINTS}) | ${result.run} | ${result.creates}${refused(result.failedCreates)} | ${ms(result.p50Ms)} | ${ms(result.p95Ms)} | ${ms(result.p99Ms)} | ${ms(result.maxMs)} | ${ms(result.p99WarmMs)} | ${result.backlogAfter10s} | ${result.missing} | ${result.duplicates} | ${result.serverCpuMicrosPerDelivery ?? '–'} | ${result.databaseCpuMicrosPerDelivery ?? (name === 'pglite' ? 'in the server' : '–')} |`,
    );
  }
}
if (results.outages.length > 0) {
  lines.push(
    '',
    '## The outage',
    '',
    `Every receiver down (connections refused) for ${OUTAGE_SECONDS} s while contacts are created at ${OUTAGE_RATE} a second, then back; the time from their return to the last webhook's arrival (the goal: within 60 s).`,
    '',
    '| Database | Creates | Deliveries waiting | Everything arrived after | Never arrived | Duplicates |',
    '|---|---|---|---|---|---|',
  );
  for (const result of results.outages) {
    lines.push(
      `| ${result.driver} | ${result.creates}${refused(result.failedCreates)} | ${result.deliveries} | ${result.drainedSeconds === null ? `not within ${DRAIN_LIMIT_MS / 1000} s` : `${result.drainedSeconds} s`} | ${result.missing} | ${result.duplicates} |`,
    );
  }
}
writeFileSync(here('./results-delivery-scale.md'), `${lines.join('\n')}\n`);
console.log(`\n${lines.join('\n')}`);

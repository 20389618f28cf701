#!/usr/bin/env node
// Throughput of the server as users run it (the built package, in a process of its own, default
// logging at info and the rate limiter on), against a bare node:http server answering the same
// bytes from memory, in the same run, alternating, with autocannon on loopback: 20 connections,
// 64 tokens rotating. On PGlite (a data directory) and on PostgreSQL when
// FOLLOWUP_TEST_DATABASE_URL or DATABASE_URL is set (a database of its own, dropped afterwards),
// over 100,000 contacts:
//   - GET /api/contacts?limit=50&offset=100 (READONLY tokens) and POST /api/contacts (AGENT
//     tokens; the insert, its audit entry and its outbox event in one transaction): server / bare,
//     in requests per second and in CPU time per request of each process (/proc, Linux), and
//     Fastify alone answering the same bytes (fastify-process.mjs): the framework's own floor;
//   - the first page, the page at offset 90,000 and the cursor page at the same place: the cost of
//     each against the first page;
//   - from `followup-server start` on the existing data to GET /healthz 200.
// Every measurement also reads the CPU time of the load generator (this process, autocannon) and,
// on PostgreSQL on this machine, of the database cluster (the postmaster and all its children,
// so give the benchmark a cluster nothing else uses): the whole cost of a request on the cores
// that it shares, from which the second table works out the highest ratio the machine allows.
// The machine may be shared: only ratios within one run mean something. Writes bench/results.md
// and bench/results.json (BENCH_RESULTS=name: bench/name.md and .json instead; BENCH_DRIVERS=
// postgres or pglite: that driver only, for instance PostgreSQL through its Unix socket, with
// FOLLOWUP_TEST_DATABASE_URL=postgres://user@localhost/db?host=/path/of/the/socket). BENCH_SCENARIOS=
// create (or list,first,offset,cursor, comma-separated): those measures only, and the database
// alone for them; BENCH_UNSAFE_NO_FSYNC=1: the PGlite server with --unsafe-no-fsync's
// unsafeNoFsync (writes acknowledged before they are on disk). BENCH_SECONDS (default 4), BENCH_ROUNDS (default 3), BENCH_PROFILE=1
// (the server process writes a CPU profile into bench/profiles/), BENCH_RENDER=1 (measures
// nothing: results.md again from results.json).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { machineDescription, median } from '../../../scripts/bench/measure.mjs';
import { migrate, openPGliteDatabase, openPostgresDatabase } from '../dist/index.js';
import { issueRoleTokens, seedContacts } from './bench-data.mjs';
import { scratchPostgresDatabase } from './drivers.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 20;
const TOKENS = 64;
const CONTACTS = 100_000;
const START_RUNS = 5;
// The kernel's clock ticks per second, in which /proc/PID/stat counts CPU time (100 on Linux).
const CLOCK_TICKS = 100;
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const RESULTS = process.env.BENCH_RESULTS ?? 'results';
const DRIVERS = process.env.BENCH_DRIVERS?.split(',');
const SCENARIOS = process.env.BENCH_SCENARIOS?.split(',');
const wantedScenario = (key) => SCENARIOS === undefined || SCENARIOS.includes(key);
const cli = here('../dist/cli.js');

function child(args, options = {}) {
  const process_ = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'ignore'],
    ...options,
  });
  const lines = createInterface({ input: process_.stdout });
  return { process: process_, firstLine: once(lines, 'line').then(([line]) => line) };
}

async function stop(running) {
  if (running.exitCode !== null) return;
  const exited = once(running, 'exit');
  running.kill('SIGTERM');
  await exited;
}

async function prepare(open) {
  const database = await open();
  await migrate(database);
  await seedContacts(database, CONTACTS);
  const tokens = await issueRoleTokens(database, { prefix: 'bench', perRole: TOKENS });
  await database.close();
  return tokens;
}

/** From `followup-server start` to the first GET /healthz 200, in milliseconds. */
async function startToReady(storageArguments) {
  const times = [];
  for (let run = 0; run < START_RUNS; run++) {
    const started = performance.now();
    const server = child([cli, 'start', '--port', '0', '--json', ...storageArguments], {
      env: { ...process.env, DATABASE_URL: '' },
    });
    const { url } = JSON.parse(await server.firstLine);
    for (;;) {
      const response = await fetch(`${url}/healthz`).catch(() => undefined);
      if (response?.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    times.push(performance.now() - started);
    await stop(server.process);
  }
  times.sort((a, b) => a - b);
  return { medianMs: times[Math.floor(times.length / 2)], runsMs: times };
}

/**
 * The CPU time a process has used so far, in microseconds (user + system, from
 * /proc/PID/stat), or undefined where there is no /proc. CPU time per request holds up better
 * than requests per second on a shared machine: it does not count the time others had the CPU.
 */
function cpuMicros(pid) {
  return processStat(pid)?.cpuMicros;
}

/**
 * A process's parent pid and CPU time so far in microseconds (user + system), from
 * /proc/PID/stat; undefined where there is no such process or no /proc.
 */
function processStat(pid) {
  try {
    // The fields after the command name, which ends with ') ': state, ppid, …, utime, stime.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return {
      parent: Number(fields[1]),
      cpuMicros: ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / CLOCK_TICKS,
    };
  } catch {
    return undefined;
  }
}

/**
 * The CPU time each process of a PostgreSQL cluster has used so far (the postmaster and its
 * children: backends, WAL writer, checkpointer…), by pid, in microseconds.
 */
function clusterCpuMicros(postmasterPid) {
  const byPid = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = processStat(entry); // undefined: ended meanwhile
    if (stat && (Number(entry) === postmasterPid || stat.parent === postmasterPid)) {
      byPid.set(entry, stat.cpuMicros);
    }
  }
  return byPid;
}

/**
 * Starts counting the CPU time of a cluster's processes: the returned function tells how much
 * they used since, in microseconds (undefined without a cluster). A backend that started in
 * between counts from zero; one that ended is lost (the server's pool keeps its connections
 * while it is busy).
 */
function clusterCpuCounter(postmasterPid) {
  if (postmasterPid === undefined) return () => undefined;
  const before = clusterCpuMicros(postmasterPid);
  return () => {
    let micros = 0;
    for (const [pid, after] of clusterCpuMicros(postmasterPid)) {
      micros += after - (before.get(pid) ?? 0);
    }
    return micros;
  };
}

/**
 * The postmaster's pid of the cluster behind a PostgreSQL URL, when that cluster runs on this
 * machine and /proc shows it (the parent of the backend that answers us); else undefined.
 */
async function postmasterOf(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT pg_backend_pid() AS pid');
    return processStat(rows[0].pid)?.parent;
  } catch {
    return undefined;
  } finally {
    await client.end();
  }
}

async function measure(base, requests, pid, postmasterPid) {
  const clusterCpu = clusterCpuCounter(postmasterPid);
  const loadBefore = process.cpuUsage();
  const cpuBefore = cpuMicros(pid);
  const result = await autocannon({
    url: base,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests,
  });
  const cpuAfter = cpuMicros(pid);
  const load = process.cpuUsage(loadBefore);
  const clusterMicros = clusterCpu();
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0) throw new Error(`${requests[0].path}: ${failures} failed requests`);
  const total = result.requests.total;
  return {
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    cpuMicrosPerRequest:
      cpuBefore === undefined || cpuAfter === undefined || total === 0
        ? null
        : (cpuAfter - cpuBefore) / total,
    loadCpuMicrosPerRequest: total === 0 ? null : (load.user + load.system) / total,
    databaseCpuMicrosPerRequest:
      clusterMicros === undefined || total === 0 ? null : clusterMicros / total,
  };
}

/**
 * The list page's or the create's SQL through the storage layer from CONNECTIONS callers, in a
 * process of its own with no HTTP (database-alone.mjs): operations per second, that process's
 * CPU time per operation and, on PostgreSQL on this machine, the cluster's.
 */
async function databaseAlone(target, key, postmasterPid) {
  const running = spawn(
    process.execPath,
    [here('./database-alone.mjs'), target, key, String(SECONDS), String(CONNECTIONS)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: running.stdout })[Symbol.asyncIterator]();
  const ready = await lines.next();
  if (ready.value !== 'ready') throw new Error(`database-alone.mjs: ${ready.value}`);
  const clusterCpu = clusterCpuCounter(postmasterPid);
  const cpuBefore = cpuMicros(running.pid);
  running.stdin.write('go\n');
  const { operations, seconds } = JSON.parse((await lines.next()).value);
  const cpuAfter = cpuMicros(running.pid);
  const clusterMicros = clusterCpu();
  const exited = once(running, 'exit');
  running.stdin.end();
  await exited;
  return {
    operationsPerSecond: operations / seconds,
    cpuMicrosPerOperation:
      cpuBefore === undefined || cpuAfter === undefined
        ? null
        : (cpuAfter - cpuBefore) / operations,
    databaseCpuMicrosPerOperation: clusterMicros === undefined ? null : clusterMicros / operations,
  };
}

/** The median, or null when any value is missing. */
function medianOrNull(values) {
  return values.some((value) => value == null) ? null : median(values);
}

/**
 * A side's whole CPU time per request: its process, the database cluster's processes and the
 * load generator; and the share of the machine's cores that this kept busy.
 */
function wholeCost(side) {
  const parts = [side.cpuMicrosPerRequest, side.loadCpuMicrosPerRequest];
  if (parts.some((part) => part == null)) return undefined;
  const micros = parts[0] + parts[1] + (side.databaseCpuMicrosPerRequest ?? 0);
  return { micros, coresBusy: (micros * side.requestsPerSecond) / 1_000_000 };
}

async function benchDriver(driver) {
  const tokens = await prepare(driver.open);
  const start = await startToReady(driver.startArguments);
  console.log(
    `${driver.name}: start to ready ${start.medianMs.toFixed(0)} ms (median of ${START_RUNS})`,
  );

  const profileDir = here('./profiles');
  if (process.env.BENCH_PROFILE) mkdirSync(profileDir, { recursive: true });
  const server = child([
    ...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
    here('./server-process.mjs'),
    driver.target,
  ]);
  const base = await server.firstLine;
  const postmasterPid = driver.postgresUrl ? await postmasterOf(driver.postgresUrl) : undefined;
  const read = (token) => ({ authorization: `Bearer ${token}` });
  const get = async (path, token = tokens.READONLY[0]) => {
    const response = await fetch(`${base}${path}`, { headers: read(token) });
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      body: await response.text(),
    };
  };
  const listPath = '/api/contacts?limit=50&offset=100';
  const list = await get(listPath);
  const beforeCursor = JSON.parse((await get('/api/contacts?limit=50&offset=89950')).body);
  const cursorPath = `/api/contacts?limit=50&cursor=${encodeURIComponent(beforeCursor.nextCursor)}`;
  const createBody = JSON.stringify({ firstName: 'Bench', lastName: 'Create', lifecycle: 'LEAD' });
  const createdResponse = await fetch(`${base}/api/contacts`, {
    method: 'POST',
    headers: { ...read(tokens.AGENT[0]), 'content-type': 'application/json' },
    body: createBody,
  });
  const created = {
    status: createdResponse.status,
    type: createdResponse.headers.get('content-type'),
    body: await createdResponse.text(),
  };
  const answersFile = join(tmpdir(), `followup-bare-${randomBytes(4).toString('hex')}.json`);
  writeFileSync(
    answersFile,
    JSON.stringify([
      { method: 'GET', path: '/api/contacts', ...list },
      { method: 'POST', path: '/api/contacts', ...created },
    ]),
  );
  const bare = child([here('./bare-process.mjs'), answersFile]);
  const bareBase = await bare.firstLine;
  const fastify = child([here('./fastify-process.mjs'), answersFile]);
  const fastifyBase = await fastify.firstLine;
  const comparators = {
    bare: { base: bareBase, pid: bare.process.pid },
    fastify: { base: fastifyBase, pid: fastify.process.pid },
    server: { base, pid: server.process.pid, postmasterPid },
  };

  const reads = (path) =>
    tokens.READONLY.map((token) => ({ method: 'GET', path, headers: read(token) }));
  const creates = tokens.AGENT.map((token) => ({
    method: 'POST',
    path: '/api/contacts',
    headers: { ...read(token), 'content-type': 'application/json' },
    body: createBody,
  }));
  const allScenarios = [
    {
      key: 'list',
      name: 'GET /api/contacts?limit=50&offset=100',
      requests: reads(listPath),
      bare: true,
    },
    {
      key: 'create',
      name: 'POST /api/contacts (insert + audit entry + outbox event, one transaction)',
      requests: creates,
      bare: true,
    },
    {
      key: 'first',
      name: 'GET /api/contacts?limit=50 (first page)',
      requests: reads('/api/contacts?limit=50'),
    },
    {
      key: 'offset',
      name: 'GET /api/contacts?limit=50&offset=90000',
      requests: reads('/api/contacts?limit=50&offset=90000'),
    },
    {
      key: 'cursor',
      name: 'GET /api/contacts?limit=50&cursor=… (the same place)',
      requests: reads(cursorPath),
    },
  ];
  const scenarios = allScenarios.filter((scenario) => wantedScenario(scenario.key));
  const samples = Object.fromEntries(
    scenarios.map((s) => [s.key, { server: [], bare: [], fastify: [] }]),
  );
  for (let round = 0; round < ROUNDS; round++) {
    for (const scenario of scenarios) {
      const order = round % 2 === 0 ? ['bare', 'fastify', 'server'] : ['server', 'fastify', 'bare'];
      for (const side of order) {
        if (side !== 'server' && !scenario.bare) continue;
        const result = await measure(
          comparators[side].base,
          scenario.requests,
          comparators[side].pid,
          comparators[side].postmasterPid,
        );
        samples[scenario.key][side].push(result);
      }
    }
    console.log(`${driver.name}: round ${round + 1} of ${ROUNDS} done`);
  }
  await stop(server.process);
  await stop(bare.process);
  await stop(fastify.process);
  rmSync(answersFile, { force: true });
  const alone = Object.fromEntries(
    ['list', 'create', 'create-in-transaction']
      .filter((key) => wantedScenario(key === 'create-in-transaction' ? 'create' : key))
      .map((key) => [key, []]),
  );
  for (let round = 0; round < ROUNDS; round++) {
    for (const key of Object.keys(alone)) {
      alone[key].push(await databaseAlone(driver.target, key, postmasterPid));
    }
  }
  console.log(`${driver.name}: the database alone done`);
  await driver.cleanup();

  const summary = (results) =>
    results.length === 0
      ? undefined
      : {
          requestsPerSecond: median(results.map((r) => r.requestsPerSecond)),
          p99Ms: median(results.map((r) => r.p99Ms)),
          cpuMicrosPerRequest: medianOrNull(results.map((r) => r.cpuMicrosPerRequest)),
          loadCpuMicrosPerRequest: medianOrNull(results.map((r) => r.loadCpuMicrosPerRequest)),
          databaseCpuMicrosPerRequest: medianOrNull(
            results.map((r) => r.databaseCpuMicrosPerRequest),
          ),
          rounds: results,
        };
  const rows = Object.fromEntries(
    scenarios.map((s) => [
      s.key,
      {
        name: s.name,
        server: summary(samples[s.key].server),
        bare: summary(samples[s.key].bare),
        fastify: summary(samples[s.key].fastify),
      },
    ]),
  );
  for (const key of ['list', 'create'].filter((key) => rows[key])) {
    rows[key].ratio = rows[key].server.requestsPerSecond / rows[key].bare.requestsPerSecond;
    rows[key].fastifyRatio = rows[key].fastify.requestsPerSecond / rows[key].bare.requestsPerSecond;
  }
  if (rows.first && rows.offset && rows.cursor) {
    const firstRps = rows.first.server.requestsPerSecond;
    rows.offset.costVsFirst = firstRps / rows.offset.server.requestsPerSecond;
    rows.cursor.costVsFirst = firstRps / rows.cursor.server.requestsPerSecond;
    // The same in CPU time per request of the server process, which the machine's other work
    // does not inflate (on PostgreSQL, the database's own processes are not counted).
    const firstCpu = rows.first.server.cpuMicrosPerRequest;
    for (const key of ['offset', 'cursor']) {
      const cpuPerRequest = rows[key].server.cpuMicrosPerRequest;
      rows[key].cpuCostVsFirst =
        firstCpu == null || cpuPerRequest == null ? null : cpuPerRequest / firstCpu;
    }
  }
  const aloneRows = {};
  for (const key of Object.keys(alone)) {
    aloneRows[key] = {
      operationsPerSecond: median(alone[key].map((r) => r.operationsPerSecond)),
      cpuMicrosPerOperation: medianOrNull(alone[key].map((r) => r.cpuMicrosPerOperation)),
      databaseCpuMicrosPerOperation: medianOrNull(
        alone[key].map((r) => r.databaseCpuMicrosPerOperation),
      ),
      rounds: alone[key],
    };
  }
  if (rows.list) rows.list.alone = aloneRows.list;
  if (rows.create) rows.create.alone = aloneRows.create;
  return {
    driver: driver.name,
    startToReady: start,
    rows,
    createInTransactionAlone: aloneRows['create-in-transaction'],
  };
}

function drivers() {
  const list = [];
  const wanted = (name) => DRIVERS === undefined || DRIVERS.includes(name);
  const dataDir = wanted('pglite') ? mkdtempSync(join(tmpdir(), 'followup-bench-')) : '';
  if (wanted('pglite'))
    list.push({
      name: 'pglite',
      target: dataDir,
      startArguments: ['--data-dir', dataDir],
      open: () => openPGliteDatabase({ dataDir }),
      cleanup: async () => rmSync(dataDir, { recursive: true, force: true }),
    });
  const url = process.env.FOLLOWUP_TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (url && wanted('postgres')) {
    const scratch = scratchPostgresDatabase(url, 'followup_bench');
    list.push({
      name: 'postgres',
      target: scratch.url,
      startArguments: ['--database-url', scratch.url],
      postgresUrl: scratch.url,
      open: async () => {
        await scratch.create();
        return openPostgresDatabase({ connectionString: scratch.url });
      },
      cleanup: () => scratch.drop(),
    });
  }
  return list;
}

// BENCH_RENDER=1 measures nothing: it writes results.md again from results.json (after a change
// to the tables' layout or arithmetic).
let run;
if (process.env.BENCH_RENDER) {
  run = JSON.parse(readFileSync(here(`./${RESULTS}.json`), 'utf8'));
} else {
  const measured = [];
  for (const driver of drivers()) measured.push(await benchDriver(driver));
  run = {
    machine: machineDescription(),
    cores: availableParallelism(),
    seconds: SECONDS,
    rounds: ROUNDS,
    connections: CONNECTIONS,
    tokens: TOKENS,
    contacts: CONTACTS,
    results: measured,
  };
  writeFileSync(here(`./${RESULTS}.json`), `${JSON.stringify(run, null, 2)}\n`);
}
const { machine, results } = run;
const ms = (value) => `${Math.round(value)} ms`;
const rps = (value) => String(Math.round(value));
const cpu = (side) =>
  side?.cpuMicrosPerRequest == null ? '' : `${Math.round(side.cpuMicrosPerRequest)} µs`;
const table = [
  `Machine: ${machine} (shared with other work: compare ratios within the run, not absolute figures).`,
  `autocannon, ${run.connections} connections, ${run.tokens} tokens rotating, ${run.seconds} s per measurement, median of ${run.rounds} alternating rounds; ${run.contacts.toLocaleString('en')} contacts; the server logs at info and rate-limits (with a limit the run never reaches). CPU/req: the process's CPU time (user + system) over the requests it answered.`,
  '',
  '| Driver | Measure | Server req/s | Server p99 | Server CPU/req | Bare req/s | Bare CPU/req | Fastify alone req/s | Fastify alone CPU/req | Ratio |',
  '|---|---|---|---|---|---|---|---|---|---|',
];
for (const result of results) {
  const { rows } = result;
  for (const key of ['list', 'create'].filter((key) => rows[key])) {
    const row = rows[key];
    table.push(
      `| ${result.driver} | ${row.name} | ${rps(row.server.requestsPerSecond)} | ${row.server.p99Ms} ms | ${cpu(row.server)} | ${rps(row.bare.requestsPerSecond)} | ${cpu(row.bare)} | ${rps(row.fastify.requestsPerSecond)} | ${cpu(row.fastify)} | ${row.ratio.toFixed(3)}x of bare (Fastify alone: ${row.fastifyRatio.toFixed(2)}x) |`,
    );
  }
  if (rows.first) {
    table.push(
      `| ${result.driver} | ${rows.first.name} | ${rps(rows.first.server.requestsPerSecond)} | ${rows.first.server.p99Ms} ms | ${cpu(rows.first.server)} | | | | | 1.00x (reference) |`,
    );
  }
  for (const key of ['offset', 'cursor'].filter((key) => rows[key]?.costVsFirst !== undefined)) {
    const row = rows[key];
    table.push(
      `| ${result.driver} | ${row.name} | ${rps(row.server.requestsPerSecond)} | ${row.server.p99Ms} ms | ${cpu(row.server)} | | | | | ${row.costVsFirst.toFixed(2)}x the first page's cost${row.cpuCostVsFirst == null ? '' : ` (CPU/req: ${row.cpuCostVsFirst.toFixed(2)}x)`} |`,
    );
  }
  table.push(
    `| ${result.driver} | \`followup-server start\` on existing data to GET /healthz 200 | | | | | | | | ${ms(result.startToReady.medianMs)} (median of ${START_RUNS}) |`,
  );
}
const cores = run.cores ?? availableParallelism();
table.push(
  '',
  `The whole CPU time of a request, in µs: the process answering it, the database cluster's processes (PostgreSQL on this machine; PGlite runs in the server's process) and the load generator (autocannon, in the benchmark's process), medians of the rounds. "Cores busy": that CPU time times the requests answered per second, of the ${cores} cores. "CPU ceiling": the bare server's whole CPU time per request over the server's, the ratio the server would reach if both ran every core flat out; a ratio below its ceiling with cores left idle waited on something other than the CPU (on PostgreSQL creates, the WAL flush of each commit).`,
  '',
  '| Driver | Measure | Server | Database | autocannon | Whole | Cores busy | Bare (+ autocannon) | Bare cores busy | CPU ceiling | Ratio measured |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
);
const micros = (value) => (value == null ? '' : `${Math.round(value)}`);
for (const result of results) {
  for (const key of ['list', 'create'].filter((key) => result.rows[key])) {
    const row = result.rows[key];
    const server = wholeCost(row.server);
    const bare = wholeCost(row.bare);
    if (!server || !bare) continue;
    table.push(
      `| ${result.driver} | ${key === 'list' ? 'GET list' : 'POST create'} | ${micros(row.server.cpuMicrosPerRequest)} | ${result.driver === 'pglite' ? '(in the server)' : micros(row.server.databaseCpuMicrosPerRequest)} | ${micros(row.server.loadCpuMicrosPerRequest)} | ${micros(server.micros)} | ${server.coresBusy.toFixed(2)} | ${micros(bare.micros)} | ${bare.coresBusy.toFixed(2)} | ${(bare.micros / server.micros).toFixed(3)}x | ${row.ratio.toFixed(3)}x |`,
    );
  }
}
table.push(
  '',
  `The floor: the same SQL through the server's storage layer from ${run.connections} callers in a process with no HTTP (\`database-alone.mjs\`), its CPU time per operation and the database cluster's, plus what Fastify alone and autocannon spend per request above: what any Node server answering this request from this database spends. The ratios are of CPU time, steadier than the bare server's requests per second: "Every core", the bare server's whole CPU time per request (with autocannon's) over the floor's, what a server costing no more than the floor would reach with the load spread over all ${cores} cores; "One thread", the same when the floor's process part (on PGlite the engine too, which cannot leave the server's process) and Fastify's must fit on one core while the bare server has them all: the limit of one server process.`,
  '',
  '| Driver | Measure | Alone: operations/s | Alone: process | Alone: database | + Fastify alone + autocannon | Floor | Every core | One thread | Goal |',
  '|---|---|---|---|---|---|---|---|---|---|',
);
for (const result of results) {
  for (const key of ['list', 'create'].filter((key) => result.rows[key])) {
    const row = result.rows[key];
    const { alone } = row;
    if (alone.cpuMicrosPerOperation == null || row.fastify.loadCpuMicrosPerRequest == null) {
      continue;
    }
    const bare = wholeCost(row.bare);
    if (!bare) continue;
    const http = row.fastify.cpuMicrosPerRequest + row.fastify.loadCpuMicrosPerRequest;
    const floor = alone.cpuMicrosPerOperation + (alone.databaseCpuMicrosPerOperation ?? 0) + http;
    const everyCore = bare.micros / floor;
    const oneThread =
      bare.micros / (cores * (alone.cpuMicrosPerOperation + row.fastify.cpuMicrosPerRequest));
    table.push(
      `| ${result.driver} | ${key === 'list' ? 'GET list' : 'POST create'} | ${rps(alone.operationsPerSecond)} | ${micros(alone.cpuMicrosPerOperation)} | ${result.driver === 'pglite' ? '(in the process)' : micros(alone.databaseCpuMicrosPerOperation)} | ${micros(http)} | ${micros(floor)} | ${everyCore.toFixed(3)}x | ${oneThread.toFixed(3)}x | ${key === 'list' ? '0.15x' : '0.05x'} |`,
    );
  }
}
table.push(
  '',
  'A create as the server sends it, one statement committed on its own (the insert, the audit entry and the outbox event in one `WITH`: one round trip), through the storage layer alone, against the create as it sent it before: BEGIN, two statements and COMMIT, four round trips:',
  '',
  '| Driver | Create, the database alone | Operations/s | Process CPU/op | Database CPU/op |',
  '|---|---|---|---|---|',
);
for (const result of results.filter((result) => result.rows.create)) {
  for (const [label, alone] of [
    ['as the server sends it (one statement)', result.rows.create.alone],
    ['as it sent it before (a transaction of four)', result.createInTransactionAlone],
  ]) {
    table.push(
      `| ${result.driver} | ${label} | ${rps(alone.operationsPerSecond)} | ${micros(alone.cpuMicrosPerOperation)} | ${result.driver === 'pglite' ? '(in the process)' : micros(alone.databaseCpuMicrosPerOperation)} |`,
    );
  }
}
// What follows the marker in results.md (the profile and what the figures show) is kept.
const marker = '<!-- analysis: kept by the benchmark -->';
let analysis = '';
try {
  const previous = readFileSync(here(`./${RESULTS}.md`), 'utf8');
  const at = previous.indexOf(marker);
  if (at !== -1) analysis = `\n${previous.slice(at)}`;
} catch {
  // No results yet.
}
writeFileSync(here(`./${RESULTS}.md`), `${table.join('\n')}\n${analysis}`);
console.log(`\n${table.join('\n')}`);

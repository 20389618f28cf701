#!/usr/bin/env node
import { median } from '../../../scripts/bench/measure.mjs';
// The CPU time metrics add to a request, in one process: two servers built on one in-memory
// PGlite (20,000 contacts), metrics off and on, answering the list and create requests of
// server.bench.mjs through app.inject (no sockets: the server's own work and the database's,
// which PGlite runs in this process), alternating batches of BENCH_BATCH requests
// BENCH_ALTERNATIONS times, after a warm-up of each. process.cpuUsage() per batch does not count
// the time other processes had the CPU, so the ratio holds on a loaded machine where
// metrics.bench.mjs's requests per second do not. Prints the medians and the ratio on/off.
import { buildServer, createServerMetrics, migrate, openPGliteDatabase } from '../dist/index.js';
import { issueRoleTokens, seedContacts } from './bench-data.mjs';

const BATCH = Number(process.env.BENCH_BATCH ?? 200);
const ALTERNATIONS = Number(process.env.BENCH_ALTERNATIONS ?? 15);
const database = await openPGliteDatabase();
await migrate(database);
await seedContacts(database, 20_000);
const tokens = await issueRoleTokens(database, { prefix: 'bench', perRole: 8 });
const limits = { rateLimit: false, addressRateLimit: false, authFailureLimit: false };
const off = buildServer({ database, logger: false, ...limits });
const metrics = createServerMetrics({ database });
const on = buildServer({ database, logger: false, metrics, ...limits });
await off.ready();
await on.ready();

const scenarios = {
  list: (i) => ({
    method: 'GET',
    url: '/api/contacts?limit=50&offset=100',
    headers: { authorization: `Bearer ${tokens.READONLY[i % 8]}` },
  }),
  create: (i) => ({
    method: 'POST',
    url: '/api/contacts',
    headers: { authorization: `Bearer ${tokens.AGENT[i % 8]}` },
    payload: { firstName: 'Bench', lastName: 'Create', lifecycle: 'LEAD' },
  }),
};

async function batch(app, request) {
  const before = process.cpuUsage();
  for (let i = 0; i < BATCH; i++) {
    const response = await app.inject(request(i));
    if (response.statusCode >= 300) throw new Error(`${response.statusCode} ${response.body}`);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / BATCH;
}

const rows = [];
for (const [key, request] of Object.entries(scenarios)) {
  await batch(off, request);
  await batch(on, request);
  const samples = { off: [], on: [] };
  for (let round = 0; round < ALTERNATIONS; round++) {
    const order =
      round % 2 === 0
        ? [
            ['off', off],
            ['on', on],
          ]
        : [
            ['on', on],
            ['off', off],
          ];
    for (const [side, app] of order) samples[side].push(await batch(app, request));
  }
  // Each alternation's own ratio, then their median: both sides of a pair ran back to back.
  const ratios = samples.on.map((value, index) => value / samples.off[index]);
  rows.push({ key, off: median(samples.off), on: median(samples.on), ratio: median(ratios) });
}
console.log(
  `| Scenario | CPU µs/req off | CPU µs/req on | on/off (median of ${ALTERNATIONS} pairs of ${BATCH}) |`,
);
console.log('| --- | ---: | ---: | ---: |');
for (const row of rows) {
  console.log(
    `| ${row.key} | ${row.off.toFixed(0)} | ${row.on.toFixed(0)} | ${((row.ratio - 1) * 100).toFixed(1)} % |`,
  );
}
// The metrics' own work per request, alone: what the request hook adds (one counter and one
// histogram with their labels), 200,000 calls a round, median of 7.
const routes = ['/api/contacts', '/api/contacts/:id', '/api/deals', 'unmatched'];
const perCall = [];
for (let round = 0; round < 8; round++) {
  const before = process.cpuUsage();
  for (let i = 0; i < 200_000; i++) {
    metrics.observeRequest({ method: 'GET', route: routes[i & 3], status: 200, seconds: i & 7 });
  }
  const used = process.cpuUsage(before);
  // The first round warms up.
  if (round > 0) perCall.push((used.user + used.system) / 200_000);
}
console.log(`observeRequest alone: ${median(perCall).toFixed(2)} CPU µs a request`);
await on.close();
await off.close();
await database.close();

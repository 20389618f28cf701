#!/usr/bin/env node
// Load: the built server, started as users start it (`followup-server start`, a process of its
// own, rate limits off), under a mixed load from autocannon: contact and deal lists, counts,
// contact creates, inbox webhooks and signed EHR webhooks; beside it, once a second, requests
// that must be refused (a body over 1 MiB: 413; a field over its limit: 400). 50 connections for 60 s by default, on an embedded
// data directory and on PostgreSQL (FOLLOWUP_TEST_DATABASE_URL or DATABASE_URL). It reports
// errors, statuses, latency p50/p99 and the server's RSS over time, and checks: no connection
// error, no 5xx, every load answer a 2xx, every probe refused with exactly its status. Writes bench/load-results.json and bench/load-results.md.
//
//   npm run bench:load -w @followup/server       (after a build)
//   LOAD_SECONDS=10 LOAD_CONNECTIONS=20 …         (a shorter run)
import { spawn, spawnSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';

const SECONDS = Number(process.env.LOAD_SECONDS ?? 60);
const CONNECTIONS = Number(process.env.LOAD_CONNECTIONS ?? 50);
const WARM_UP_SECONDS = Math.min(15, Math.floor(SECONDS / 4));
const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const EHR_SECRET = randomBytes(16).toString('hex');
const INBOX_SECRET = randomBytes(16).toString('hex');

function run(storage, ...argv) {
  const result = spawnSync(process.execPath, [cli, ...argv, '--json', ...storage], {
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: '' },
  });
  if (result.status !== 0) throw new Error(`${argv.join(' ')} failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kib / 1024);
}

async function loadDriver(name, storage) {
  const account = run(storage, 'accounts', 'create', '--name', 'load', '--role', 'MANAGER');
  const { token } = run(storage, 'tokens', 'issue', '--account', account.id);
  const child = spawn(
    process.execPath,
    [
      cli,
      'start',
      '--port',
      '0',
      '--json',
      '--rate-limit',
      '0',
      '--address-rate-limit',
      '0',
      ...storage,
    ],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: {
        ...process.env,
        DATABASE_URL: '',
        INBOX_WEBHOOK_SECRET: INBOX_SECRET,
        EHR_WEBHOOK_SECRET_ATHENAHEALTH: EHR_SECRET,
      },
    },
  );
  const [line] = await once(createInterface({ input: child.stdout }), 'line');
  const { url } = JSON.parse(line);
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const ehrBody = JSON.stringify({ event: 'patient.updated', id: 'p1' });
  const ehrSignature = `sha256=${createHmac('sha256', EHR_SECRET).update(ehrBody).digest('hex')}`;
  const tooLarge = JSON.stringify({ firstName: 'x'.repeat(1024 * 1024 + 16), lastName: 'y' });
  const overLimit = JSON.stringify({ firstName: 'x'.repeat(201), lastName: 'y' });
  // Each connection cycles through these, each answered with a 2xx.
  const mix = [
    {
      name: 'list contacts',
      method: 'GET',
      path: '/api/contacts?limit=50',
      headers: auth,
      expect: 200,
    },
    {
      name: 'create contact',
      method: 'POST',
      path: '/api/contacts',
      headers: auth,
      body: JSON.stringify({ firstName: 'Load', lastName: 'Test' }),
      expect: 201,
    },
    {
      name: 'inbox',
      method: 'POST',
      path: '/api/inbox/webhook',
      headers: { 'content-type': 'application/json', 'x-service-webhook-secret': INBOX_SECRET },
      body: JSON.stringify({ from: 'load@example.com', subject: 'Load' }),
      expect: 201,
    },
    {
      name: 'EHR webhook',
      method: 'POST',
      path: '/api/ehr/webhooks/athenahealth',
      headers: { 'content-type': 'application/json', 'x-hub-signature': ehrSignature },
      body: ehrBody,
      expect: 202,
    },
    { name: 'list deals', method: 'GET', path: '/api/deals?limit=20', headers: auth, expect: 200 },
    {
      name: 'count contacts',
      method: 'GET',
      path: '/api/contacts/count',
      headers: auth,
      expect: 200,
    },
  ];
  const rss = [];
  // Once a second, beside the load: a body over 1 MiB (413) and a field over its limit (400).
  const probes = { sent: 0, refusedAsExpected: 0, other: {} };
  const probe = async (body, expected) => {
    probes.sent++;
    try {
      const response = await fetch(`${url}/api/contacts`, { method: 'POST', headers: auth, body });
      await response.arrayBuffer();
      if (response.status === expected) probes.refusedAsExpected++;
      else probes.other[response.status] = (probes.other[response.status] ?? 0) + 1;
    } catch (error) {
      probes.other[error.cause?.code ?? 'error'] =
        (probes.other[error.cause?.code ?? 'error'] ?? 0) + 1;
    }
  };
  const probing = [];
  const sampler = setInterval(() => {
    rss.push({ at: rss.length, mb: rssOf(child.pid) });
    probing.push(probe(tooLarge, 413), probe(overLimit, 400));
  }, 1000);
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: mix.map((request) => ({
      method: request.method,
      path: request.path,
      headers: request.headers,
      ...(request.body ? { body: request.body } : {}),
    })),
  });
  clearInterval(sampler);
  await Promise.all(probing);
  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  const afterWarmUp = rss.slice(WARM_UP_SECONDS).map((sample) => sample.mb);
  const half = Math.floor(afterWarmUp.length / 2);
  const mean = (values) =>
    values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
  const statuses = {};
  for (const [key, value] of Object.entries(result.statusCodeStats ?? {}))
    statuses[key] = value.count;
  return {
    driver: name,
    connections: CONNECTIONS,
    seconds: SECONDS,
    requests: result.requests.total,
    requestsPerSecond: Math.round(result.requests.average),
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    connectionErrors: result.errors,
    timeouts: result.timeouts,
    statuses,
    server5xx: Object.entries(statuses)
      .filter(([status]) => Number(status) >= 500)
      .reduce((sum, [, count]) => sum + count, 0),
    non2xx: result.non2xx,
    limitProbes: probes,
    rssMb: {
      afterWarmUpFirstHalf: Math.round(mean(afterWarmUp.slice(0, half))),
      afterWarmUpSecondHalf: Math.round(mean(afterWarmUp.slice(half))),
      max: Math.max(...rss.map((sample) => sample.mb)),
    },
    cleanShutdown: code === 0,
  };
}

const results = [];
const dataDir = mkdtempSync(join(tmpdir(), 'followup-load-'));
try {
  results.push(await loadDriver('pglite', ['--data-dir', dataDir]));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
const databaseUrl = process.env.FOLLOWUP_TEST_DATABASE_URL ?? process.env.DATABASE_URL;
if (databaseUrl) {
  const schema = `load_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  try {
    const url = new URL(databaseUrl);
    url.searchParams.set('options', `-c search_path=${schema}`);
    results.push(await loadDriver('postgres', ['--database-url', url.toString()]));
  } finally {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
}

const machine = `${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}`;
writeFileSync(
  new URL('./load-results.json', import.meta.url),
  `${JSON.stringify({ machine, results }, null, 2)}\n`,
);
const rows = results.map(
  (r) =>
    `| ${r.driver} | ${r.requests} | ${r.requestsPerSecond} | ${r.latencyP50Ms} ms | ${r.latencyP99Ms} ms | ${r.connectionErrors} | ${r.server5xx} | ${r.non2xx} | ${r.limitProbes.refusedAsExpected} of ${r.limitProbes.sent} | ${r.rssMb.afterWarmUpFirstHalf} → ${r.rssMb.afterWarmUpSecondHalf} MB (max ${r.rssMb.max}) |`,
);
writeFileSync(
  new URL('./load-results.md', import.meta.url),
  [
    `Machine: ${machine}; autocannon, ${CONNECTIONS} connections, ${SECONDS} s per driver; mix: contact lists, deal lists, counts, contact creates, inbox and signed EHR webhooks, and, once a second beside them, a body over 1 MiB (413) and a field over its limit (400).`,
    '',
    '| Driver | Requests | Req/s | p50 | p99 | Connection errors | 5xx | Non-2xx | 413/400 probes refused as expected | Server RSS after warm-up (first half → second half) |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n'),
);
console.log(readFileSync(new URL('./load-results.md', import.meta.url), 'utf8'));
const failed = results.some(
  (r) =>
    r.connectionErrors > 0 ||
    r.server5xx > 0 ||
    r.non2xx > 0 ||
    r.limitProbes.refusedAsExpected !== r.limitProbes.sent,
);
process.exit(failed ? 1 : 0);

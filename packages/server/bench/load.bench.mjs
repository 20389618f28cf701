#!/usr/bin/env node
// Load: the built server, started as users start it (`followup-server start`, a process of its
// own) with its DEFAULT limits on (600 requests a minute per token, 1200 a minute per client
// address on the inbox and EHR webhooks), behind a trusted proxy (TRUST_PROXY=127.0.0.1), under
// a mixed load from autocannon: contact and deal lists, counts, contact creates, inbox webhooks
// and signed EHR webhooks. The load is spread over 50 client addresses (X-Forwarded-For) and
// four tokens per address, as real clients behind a proxy would be, so that legitimate traffic
// stays under the limits. Beside it: once a second, requests that must be refused (a body over
// 1 MiB: 413; a field over its limit: 400); and, a quarter into the run, a token and an address
// that burst past their limits, which must be answered 429 with Retry-After. 50 connections for
// 60 s by default, on an embedded data directory and on PostgreSQL (FOLLOWUP_TEST_DATABASE_URL or
// DATABASE_URL). It reports errors, timeouts, statuses, latency p50/p99, the server's RSS over
// time and the machine's load average, and checks: no connection error or timeout, no 5xx,
// every load answer a 2xx, every probe refused with exactly its status, both bursts limited.
// Writes bench/load-results.json and bench/load-results.md.
//
//   npm run bench:load -w @followup/server       (after a build)
//   LOAD_SECONDS=10 LOAD_CONNECTIONS=20 …         (a shorter run)
//   LOAD_DRIVERS=pglite …                         (one driver)
import { spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { machineDescription } from '../../../scripts/bench/measure.mjs';

const SECONDS = Number(process.env.LOAD_SECONDS ?? 60);
const CONNECTIONS = Number(process.env.LOAD_CONNECTIONS ?? 50);
const WARM_UP_SECONDS = Math.min(15, Math.floor(SECONDS / 4));
const DRIVERS = (process.env.LOAD_DRIVERS ?? 'pglite,postgres').split(',');
// Simulated clients: each an address of its own, with TOKENS_PER_CLIENT tokens.
const CLIENTS = 50;
const TOKENS_PER_CLIENT = 4;
const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const server = await import(new URL('../dist/index.js', import.meta.url).href);
const EHR_SECRET = randomBytes(16).toString('hex');
const INBOX_SECRET = randomBytes(16).toString('hex');

// Accounts and tokens, written straight into the storage before the server starts (hundreds of
// `tokens issue` commands would take minutes).
async function issueTokens(storage, count) {
  const database =
    storage[0] === '--data-dir'
      ? await server.openPGliteDatabase({ dataDir: storage[1] })
      : await server.openPostgresDatabase({ connectionString: storage[1] });
  try {
    await server.migrate(database);
    const accounts = server.createAccountStore({ database });
    const account = await accounts.createAccount({ name: 'load', role: 'MANAGER' });
    const tokens = [];
    for (let index = 0; index < count; index++) {
      tokens.push((await accounts.issueToken({ accountId: account.id })).token);
    }
    return tokens;
  } finally {
    await database.close();
  }
}

// Sends `request` until it is answered 429 (at most `max` times, `concurrency` at once): how
// many were answered before, and what the 429 said.
async function burstUntilLimited(url, request, { max, concurrency }) {
  let sent = 0;
  let beforeLimit = 0;
  let limited;
  const other = {};
  const worker = async () => {
    while (!limited && sent < max) {
      sent++;
      try {
        const response = await fetch(url + request.path, {
          method: request.method,
          headers: request.headers,
          ...(request.body ? { body: request.body } : {}),
        });
        const body = await response.text();
        if (response.status === 429) {
          limited ??= {
            status: 429,
            retryAfter: response.headers.get('retry-after'),
            contentType: response.headers.get('content-type'),
            code: JSON.parse(body).code,
          };
        } else if (response.status === request.expect) beforeLimit++;
        else other[response.status] = (other[response.status] ?? 0) + 1;
      } catch (error) {
        other[error.cause?.code ?? 'error'] = (other[error.cause?.code ?? 'error'] ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { answeredBeforeLimit: beforeLimit, limited: limited ?? null, other };
}

// Loaded into the server (NODE_OPTIONS): its memory once a second on stderr, and on SIGUSR2 its
// live heap after a full garbage collection (what a leak would make grow).
const memoryReporter = `const mb = (bytes) => Math.round(bytes / 1048576);
const report = (key) => {
  const m = process.memoryUsage();
  process.stderr.write(JSON.stringify({ [key]: { rss: mb(m.rss), heapUsed: mb(m.heapUsed), heapTotal: mb(m.heapTotal), external: mb(m.external), arrayBuffers: mb(m.arrayBuffers) } }) + '\\n');
};
setInterval(() => report('memory'), 1000).unref();
process.on('SIGUSR2', () => { globalThis.gc(); report('afterGc'); });`;

function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kib / 1024);
}

async function loadDriver(name, storage) {
  const [bodyProbeToken, rateProbeToken, ...tokens] = await issueTokens(
    storage,
    2 + CLIENTS * TOKENS_PER_CLIENT,
  );
  const child = spawn(process.execPath, [cli, 'start', '--port', '0', '--json', ...storage], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      // The server's own view of its memory, once a second on stderr: the V8 heap apart from
      // the array buffers (the embedded database's WebAssembly memory among them).
      NODE_OPTIONS: `--expose-gc --import=data:text/javascript,${encodeURIComponent(memoryReporter)}`,
      DATABASE_URL: '',
      TRUST_PROXY: '127.0.0.1',
      INBOX_WEBHOOK_SECRET: INBOX_SECRET,
      EHR_WEBHOOK_SECRET_ATHENAHEALTH: EHR_SECRET,
    },
  });
  const memory = [];
  const afterGc = [];
  let gcAnswered = () => {};
  createInterface({ input: child.stderr }).on('line', (text) => {
    if (text.startsWith('{"memory"')) memory.push(JSON.parse(text).memory);
    if (text.startsWith('{"afterGc"')) {
      afterGc.push(JSON.parse(text).afterGc);
      gcAnswered();
    }
  });
  // The live heap after a full collection, measured once warm and once at the end.
  const measureAfterGc = () =>
    new Promise((resolve) => {
      gcAnswered = resolve;
      child.kill('SIGUSR2');
    });
  const warm = new Promise((resolve) => setTimeout(resolve, WARM_UP_SECONDS * 1000)).then(
    measureAfterGc,
  );
  const [line] = await once(createInterface({ input: child.stdout }), 'line');
  const { url } = JSON.parse(line);
  const loadAverageAtStart = loadavg()[0];
  const auth = { 'content-type': 'application/json' };
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
  // Each request is sent as the next simulated client: its own address, one of its tokens.
  let turn = 0;
  const asNextClient = (request) => {
    const client = turn % CLIENTS;
    const token =
      tokens[client * TOKENS_PER_CLIENT + (Math.floor(turn / CLIENTS) % TOKENS_PER_CLIENT)];
    turn++;
    return {
      ...request,
      headers: {
        ...request.headers,
        'x-forwarded-for': `10.0.${client}.1`,
        ...(request.headers['x-service-webhook-secret'] || request.headers['x-hub-signature']
          ? {}
          : { authorization: `Bearer ${token}` }),
      },
    };
  };
  const rss = [];
  // Once a second, beside the load: a body over 1 MiB (413) and a field over its limit (400).
  const probes = { sent: 0, refusedAsExpected: 0, other: {} };
  const probe = async (body, expected) => {
    probes.sent++;
    try {
      const response = await fetch(`${url}/api/contacts`, {
        method: 'POST',
        headers: {
          ...auth,
          authorization: `Bearer ${bodyProbeToken}`,
          'x-forwarded-for': '192.0.2.1',
        },
        body,
      });
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
  // A quarter into the run: one token and one address burst past their limits.
  let bursts;
  const bursting = new Promise((resolve) => setTimeout(resolve, (SECONDS * 1000) / 4)).then(
    async () => {
      const [token, address] = await Promise.all([
        burstUntilLimited(
          url,
          {
            method: 'GET',
            path: '/api/me',
            headers: { authorization: `Bearer ${rateProbeToken}`, 'x-forwarded-for': '192.0.2.2' },
            expect: 200,
          },
          { max: 2000, concurrency: 8 },
        ),
        // A wrong inbox secret: refused 401 before any database work, until the address's
        // budget is spent.
        burstUntilLimited(
          url,
          {
            method: 'POST',
            path: '/api/inbox/webhook',
            headers: {
              'content-type': 'application/json',
              'x-service-webhook-secret': 'not the secret',
              'x-forwarded-for': '192.0.2.3',
            },
            body: '{}',
            expect: 401,
          },
          { max: 3000, concurrency: 8 },
        ),
      ]);
      bursts = { token, address };
    },
  );
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: mix.map((request) => ({
      method: request.method,
      path: request.path,
      headers: request.headers,
      ...(request.body ? { body: request.body } : {}),
      setupRequest: asNextClient,
    })),
  });
  clearInterval(sampler);
  await Promise.all([...probing, bursting, warm]);
  await measureAfterGc();
  const loadAverageAtEnd = loadavg()[0];
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
    bursts,
    loadAverage: { atStart: loadAverageAtStart, atEnd: loadAverageAtEnd },
    rssMb: {
      afterWarmUpFirstHalf: Math.round(mean(afterWarmUp.slice(0, half))),
      afterWarmUpSecondHalf: Math.round(mean(afterWarmUp.slice(half))),
      max: Math.max(...rss.map((sample) => sample.mb)),
      samples: rss.map((sample) => sample.mb),
    },
    // The server's own samples after warm-up: first and last.
    memoryMb: {
      afterWarmUp: memory[WARM_UP_SECONDS] ?? null,
      atEnd: memory.at(-1) ?? null,
      afterFullGcWarm: afterGc[0] ?? null,
      afterFullGcAtEnd: afterGc[1] ?? null,
    },
    cleanShutdown: code === 0,
  };
}

const results = [];
const dataDir = mkdtempSync(join(tmpdir(), 'followup-load-'));
try {
  if (DRIVERS.includes('pglite')) results.push(await loadDriver('pglite', ['--data-dir', dataDir]));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
const databaseUrl = process.env.FOLLOWUP_TEST_DATABASE_URL ?? process.env.DATABASE_URL;
if (databaseUrl && DRIVERS.includes('postgres')) {
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

const machine = machineDescription();
writeFileSync(
  new URL('./load-results.json', import.meta.url),
  `${JSON.stringify({ machine, results }, null, 2)}\n`,
);
const burstText = (burst) =>
  burst?.limited
    ? `429 after ${burst.answeredBeforeLimit} (Retry-After ${burst.limited.retryAfter})`
    : 'not limited';
const rows = results.map(
  (r) =>
    `| ${r.driver} | ${r.requests} | ${r.requestsPerSecond} | ${r.latencyP50Ms} ms | ${r.latencyP99Ms} ms | ${r.connectionErrors} | ${r.timeouts} | ${r.server5xx} | ${r.non2xx} | ${r.limitProbes.refusedAsExpected} of ${r.limitProbes.sent} | ${burstText(r.bursts?.token)} | ${burstText(r.bursts?.address)} | ${r.rssMb.afterWarmUpFirstHalf} → ${r.rssMb.afterWarmUpSecondHalf} MB (max ${r.rssMb.max}) | ${r.memoryMb.afterFullGcWarm?.heapUsed} → ${r.memoryMb.afterFullGcAtEnd?.heapUsed} MB | ${r.loadAverage.atStart.toFixed(1)} → ${r.loadAverage.atEnd.toFixed(1)} |`,
);
writeFileSync(
  new URL('./load-results.md', import.meta.url),
  [
    `Machine: ${machine}; autocannon, ${CONNECTIONS} connections, ${SECONDS} s per driver, the server's default limits on (600 requests a minute per token, 1200 a minute per address on the webhooks), the load spread over ${CLIENTS} client addresses (X-Forwarded-For through a trusted proxy) with ${TOKENS_PER_CLIENT} tokens each; mix: contact lists, deal lists, counts, contact creates, inbox and signed EHR webhooks; once a second beside them, a body over 1 MiB (413) and a field over its limit (400); a quarter into the run, one token and one address burst until limited. The machine is shared: its 1-minute load average is given at the start and the end of each run.`,
    '',
    '| Driver | Requests | Req/s | p50 | p99 | Connection errors | Timeouts | 5xx | Non-2xx | 413/400 probes refused as expected | Token burst | Address burst | Server RSS after warm-up (first half → second half) | Live V8 heap after a full GC (warm → end) | Load average |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n'),
);
console.log(readFileSync(new URL('./load-results.md', import.meta.url), 'utf8'));
const failed =
  results.length === 0 ||
  results.some(
    (r) =>
      r.connectionErrors > 0 ||
      r.timeouts > 0 ||
      r.server5xx > 0 ||
      r.non2xx > 0 ||
      r.limitProbes.refusedAsExpected !== r.limitProbes.sent ||
      !r.bursts?.token.limited ||
      !r.bursts?.address.limited,
  );
process.exit(failed ? 1 : 0);

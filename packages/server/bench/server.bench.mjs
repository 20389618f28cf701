#!/usr/bin/env node
// Throughput of the server (the built package, as users run it), on loopback with autocannon:
// an authenticated list read (`GET /api/contacts?limit=50` over 1000 demo contacts, validated
// against the SDK's contact schema on the way out) and `POST /api/ehr/webhooks/athenahealth` (HMAC over
// the raw body, receipt written before the 202). Each is measured beside a bare Fastify route
// that answers the same bytes from memory, in the same run, so the ratio says what the server's
// own work (authentication, database, validation, logging off) costs. On PGlite, and on
// PostgreSQL when FOLLOWUP_TEST_DATABASE_URL or DATABASE_URL is set.
// Writes bench/results.json and bench/results.md.
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { buildServer, createAccountStore, migrate, seedDemoData } from '../dist/index.js';
import { openDrivers } from './drivers.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const EHR_SECRET = 'bench-athenahealth-secret';
const EHR_BODY = JSON.stringify({
  event: 'appointment.updated',
  practiceId: 195900,
  appointment: { id: 'a-1', status: 'checked-in', provider: 'p-7', at: '2026-03-01T09:00:00Z' },
});
const EHR_SIGNATURE = `sha256=${createHmac('sha256', EHR_SECRET).update(EHR_BODY).digest('hex')}`;

async function measure(options) {
  const result = await autocannon({
    connections: CONNECTIONS,
    duration: SECONDS,
    ...options,
  });
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0) throw new Error(`${options.url}: ${failures} failed requests`);
  return { requestsPerSecond: result.requests.average, p99Ms: result.latency.p99 };
}

async function benchDriver(driver) {
  const database = await driver.open();
  await migrate(database);
  const accounts = createAccountStore({ database });
  const account = await accounts.createAccount({ name: 'bench', role: 'ADMIN' });
  const { token } = await accounts.issueToken({ accountId: account.id });
  await seedDemoData(database, { contacts: 1000 });

  const app = buildServer({
    database,
    logger: false,
    rateLimit: false,
    ehrWebhookSecrets: { athenahealth: EHR_SECRET },
  });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const auth = { authorization: `Bearer ${token}` };
  const listBody = (
    await app.inject({ method: 'GET', url: '/api/contacts?limit=50&offset=500', headers: auth })
  ).body;
  const receiptBody = JSON.stringify({ receiptId: 'rcpt_01JD000000000000000000000' });

  const bare = Fastify({ logger: false });
  bare.get('/bare/list', (_request, reply) => {
    reply.type('application/json; charset=utf-8').send(listBody);
  });
  bare.post('/bare/ehr', (_request, reply) => {
    reply.code(202).type('application/json; charset=utf-8').send(receiptBody);
  });
  const bareBase = await bare.listen({ port: 0, host: '127.0.0.1' });

  const scenarios = [
    {
      name: 'GET /api/contacts?limit=50 (authenticated list)',
      server: { url: `${base}/api/contacts?limit=50&offset=500`, headers: auth },
      bare: { url: `${bareBase}/bare/list` },
    },
    {
      name: 'POST /api/ehr/webhooks/athenahealth',
      server: {
        url: `${base}/api/ehr/webhooks/athenahealth`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature': EHR_SIGNATURE },
        body: EHR_BODY,
      },
      bare: {
        url: `${bareBase}/bare/ehr`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: EHR_BODY,
      },
    },
  ];
  const rows = [];
  for (const scenario of scenarios) {
    const bareResult = await measure(scenario.bare);
    const serverResult = await measure(scenario.server);
    rows.push({
      driver: driver.name,
      scenario: scenario.name,
      server: serverResult,
      bare: bareResult,
      ratio: serverResult.requestsPerSecond / bareResult.requestsPerSecond,
    });
    console.log(
      `${driver.name.padEnd(8)} ${scenario.name}: ${Math.round(serverResult.requestsPerSecond)} req/s ` +
        `(p99 ${serverResult.p99Ms} ms) vs bare ${Math.round(bareResult.requestsPerSecond)} req/s ` +
        `(p99 ${bareResult.p99Ms} ms): ${(100 * rows.at(-1).ratio).toFixed(1)} %`,
    );
  }
  await app.close();
  await bare.close();
  await driver.cleanup?.(database);
  await database.close();
  return rows;
}

const results = [];
for (const driver of await openDrivers()) results.push(...(await benchDriver(driver)));

const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, Node ${process.version}`;
writeFileSync(
  new URL('./results.json', import.meta.url),
  `${JSON.stringify({ machine, seconds: SECONDS, connections: CONNECTIONS, results }, null, 2)}\n`,
);
const table = [
  `Machine: ${machine}; autocannon, ${CONNECTIONS} connections, ${SECONDS} s per measurement.`,
  '',
  '| Driver | Scenario | Server req/s | Server p99 | Bare req/s | Bare p99 | Server / bare |',
  '|---|---|---|---|---|---|---|',
  ...results.map(
    (row) =>
      `| ${row.driver} | ${row.scenario} | ${Math.round(row.server.requestsPerSecond)} | ` +
      `${row.server.p99Ms} ms | ${Math.round(row.bare.requestsPerSecond)} | ${row.bare.p99Ms} ms | ` +
      `${(100 * row.ratio).toFixed(1)} % |`,
  ),
];
writeFileSync(new URL('./results.md', import.meta.url), `${table.join('\n')}\n`);
console.log(`\n${table.join('\n')}`);

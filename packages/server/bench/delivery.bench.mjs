#!/usr/bin/env node
// Outbound delivery speed of the server (the built package): creates N contacts through the API
// (10 requests at a time, on loopback) with one endpoint subscribed, and measures the time until
// the last `contact.created` webhook reaches a local subscriber, and the delay of each one from
// the contact's `createdAt` (taken in its transaction, just before the commit) to its arrival:
// p50 and p99. On PGlite, and on
// PostgreSQL when FOLLOWUP_TEST_DATABASE_URL or DATABASE_URL is set.
// Writes bench/delivery-results.json and bench/delivery-results.md.
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { machineDescription } from '../../../scripts/bench/measure.mjs';
import { buildServer, createAccountStore, createDeliveryWorker, migrate } from '../dist/index.js';
import { openDrivers } from './drivers.mjs';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 10_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

function percentile(sorted, fraction) {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

async function benchDriver(driver) {
  const delayOf = new Map();
  let allArrived;
  const done = new Promise((resolve) => {
    allArrived = resolve;
  });
  const subscriber = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const { data } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (!delayOf.has(data.id)) delayOf.set(data.id, Date.now() - Date.parse(data.createdAt));
      response.writeHead(204).end();
      if (delayOf.size === CONTACTS) allArrived();
    });
  });
  await new Promise((resolve) => subscriber.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${subscriber.address().port}/hooks`;

  const database = await driver.open();
  await migrate(database);
  const worker = createDeliveryWorker({
    database,
    allowPrivate: true,
    ...(process.env.BENCH_DELIVERY_CONCURRENCY
      ? { concurrency: Number(process.env.BENCH_DELIVERY_CONCURRENCY) }
      : {}),
  });
  const app = buildServer({
    database,
    logger: false,
    rateLimit: false,
    onOutboxEvent: () => worker.wake(),
  });
  try {
    const accounts = createAccountStore({ database });
    const account = await accounts.createAccount({ name: 'bench', role: 'AGENT' });
    const { token } = await accounts.issueToken({ accountId: account.id });
    const { runCli } = await import('../dist/index.js');
    const quiet = { write: () => undefined };
    const code = await runCli(['endpoints', 'add', '--url', hookUrl], {
      stdout: quiet,
      stderr: quiet,
      env: {},
      database,
    });
    if (code !== 0) throw new Error('endpoints add failed');
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    worker.start();

    const started = performance.now();
    let next = 0;
    const create = async () => {
      while (next < CONTACTS) {
        const index = next++;
        const response = await fetch(`${base}/api/contacts`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ firstName: `Bench ${index}`, lastName: 'Delivery' }),
        });
        if (response.status !== 201) throw new Error(`POST /api/contacts: ${response.status}`);
        await response.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, create));
    const createdMs = performance.now() - started;
    await done;
    const lastMs = performance.now() - started;
    const delays = [...delayOf.values()].sort((a, b) => a - b);
    return {
      driver: driver.name,
      contacts: CONTACTS,
      createdSeconds: Number((createdMs / 1000).toFixed(2)),
      lastDeliveredSeconds: Number((lastMs / 1000).toFixed(2)),
      p50Ms: Math.round(percentile(delays, 0.5)),
      p99Ms: Math.round(percentile(delays, 0.99)),
    };
  } finally {
    await app.close();
    await worker.close();
    await driver.cleanup?.(database);
    await database.close();
    await new Promise((resolve) => subscriber.close(resolve));
  }
}

const results = [];
for (const driver of await openDrivers()) {
  const result = await benchDriver(driver);
  console.log(JSON.stringify(result));
  results.push(result);
}
const machine = machineDescription();
writeFileSync(
  new URL('./delivery-results.json', import.meta.url),
  `${JSON.stringify({ machine, connections: CONNECTIONS, results }, null, 2)}\n`,
);
const table = [
  `Machine: ${machine}; ${CONNECTIONS} API requests at a time, one endpoint on loopback.`,
  '',
  '| Driver | Contacts | All created | Last webhook arrived | Delay p50 | Delay p99 |',
  '|---|---|---|---|---|---|',
  ...results.map(
    (result) =>
      `| ${result.driver} | ${result.contacts} | ${result.createdSeconds} s | ` +
      `${result.lastDeliveredSeconds} s | ${result.p50Ms} ms | ${result.p99Ms} ms |`,
  ),
];
writeFileSync(new URL('./delivery-results.md', import.meta.url), `${table.join('\n')}\n`);

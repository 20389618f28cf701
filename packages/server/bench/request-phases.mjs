#!/usr/bin/env node
// Where one request's CPU time goes, phase by phase: the built server (buildServer as
// server-process.mjs runs it: logging at info, the rate limiter on, the delivery worker woken by
// each write), requests sent one at a time over one keep-alive connection, the process's CPU
// time (user + system) read at each Fastify hook and around each SQL statement. On PGlite (a data
// directory) and on PostgreSQL when FOLLOWUP_TEST_DATABASE_URL or DATABASE_URL is set (a schema
// of its own, dropped afterwards). One process runs the server and the client, so the sum of the
// phases is below the process's CPU per request: the rest is the HTTP client and what Node does
// before the first hook (parsing, routing) and after the last. On PostgreSQL the database's own
// CPU is not counted (another process). Each scenario runs PHASES_ROUNDS times (default 3),
// alternating, and the least disturbed round is shown; PHASES_REQUESTS (default 2000) each.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildServer,
  createDeliveryWorker,
  migrate,
  openPGliteDatabase,
  openPostgresDatabase,
} from '../dist/index.js';
import { issueRoleTokens, seedContacts } from './bench-data.mjs';

const REQUESTS = Number(process.env.PHASES_REQUESTS ?? 2000);
const WARM_UP = 300;
const ROUNDS = Number(process.env.PHASES_ROUNDS ?? 3);
const cpuNow = () => {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
};

/** A Database whose statements add their CPU time to `sink.statements` (while a request runs). */
function measured(database, sink) {
  const wrap = (queryable) => ({
    async query(sql, params) {
      const started = cpuNow();
      try {
        return await queryable.query(sql, params);
      } finally {
        if (sink.current) sink.current.statements += cpuNow() - started;
      }
    },
  });
  return {
    driver: database.driver,
    query: (sql, params) => wrap(database).query(sql, params),
    transaction: (callback) => database.transaction((transaction) => callback(wrap(transaction))),
    ...(database.listen ? { listen: database.listen.bind(database) } : {}),
    close: () => database.close(),
  };
}

async function phasesOf(name, database) {
  await migrate(database);
  await seedContacts(database, 1000);
  const tokens = await issueRoleTokens(database, { prefix: 'phases', perRole: 64 });
  const sink = { current: undefined };
  const worker = createDeliveryWorker({ database });
  const app = buildServer({
    database: measured(database, sink),
    onOutboxEvent: () => worker.wake(),
    logger: { level: 'info', stream: { write() {} } },
    rateLimit: { limit: 100_000_000, windowSeconds: 60 },
  });
  const stamp = (key) => async (request) => {
    request.phases[key] = cpuNow();
  };
  const done = [];
  app.addHook('onRequest', async (request) => {
    request.phases = { onRequest: cpuNow(), statements: 0 };
    sink.current = request.phases;
  });
  app.addHook('preValidation', stamp('preValidation'));
  app.addHook('preHandler', stamp('preHandler'));
  app.addHook('preSerialization', async (request, _reply, payload) => {
    request.phases.preSerialization = cpuNow();
    return payload;
  });
  app.addHook('onSend', async (request, _reply, payload) => {
    request.phases.onSend = cpuNow();
    return payload;
  });
  app.addHook('onResponse', async (request) => {
    request.phases.onResponse = cpuNow();
    sink.current = undefined;
    done.push(request.phases);
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  worker.start();
  const { port } = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const send = (method, path, token, body) =>
    new Promise((resolve, reject) => {
      const headers = { authorization: `Bearer ${token}` };
      if (body) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(body);
      }
      const request = http.request({ port, path, method, agent, headers }, (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => {
          if (response.statusCode >= 300) reject(new Error(`${path}: ${response.statusCode}`));
          else resolve(Buffer.concat(chunks).toString());
        });
      });
      request.on('error', reject);
      request.end(body);
    });
  const before = JSON.parse(
    await send('GET', '/api/contacts?limit=50&offset=850', tokens.READONLY[0]),
  );
  const createBody = JSON.stringify({ firstName: 'Bench', lastName: 'Create', lifecycle: 'LEAD' });
  const scenarios = [
    ['GET /api/contacts?limit=50&offset=100', 'GET', '/api/contacts?limit=50&offset=100'],
    [
      'GET /api/contacts?limit=50&cursor=… (after row 900)',
      'GET',
      `/api/contacts?limit=50&cursor=${encodeURIComponent(before.nextCursor)}`,
    ],
    ['POST /api/contacts', 'POST', '/api/contacts', createBody],
  ];
  // Each scenario ROUNDS times, alternating; the round with the least CPU per request is kept
  // (the least disturbed by the machine's other work).
  const best = new Map();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, method, path, body] of scenarios) {
      const role = method === 'POST' ? 'AGENT' : 'READONLY';
      for (let index = 0; index < WARM_UP; index++) {
        await send(method, path, tokens[role][index % 64], body);
      }
      done.length = 0;
      const started = cpuNow();
      for (let index = 0; index < REQUESTS; index++) {
        await send(method, path, tokens[role][index % 64], body);
      }
      const total = (cpuNow() - started) / REQUESTS;
      if ((best.get(label)?.total ?? Number.POSITIVE_INFINITY) > total) {
        best.set(label, { total, phases: [...done] });
      }
    }
  }
  const lines = [];
  for (const [label, { total, phases: measuredPhases }] of best) {
    const mean = (from, to) =>
      measuredPhases.reduce((sum, phases) => sum + (phases[to] - phases[from]), 0) /
      measuredPhases.length;
    const statements =
      measuredPhases.reduce((sum, phases) => sum + phases.statements, 0) / measuredPhases.length;
    const rows = [
      [
        'onRequest hooks (authentication with the token cache, rate limit); for a write, the body read and parsed',
        mean('onRequest', 'preValidation'),
      ],
      ['validation of the query string or body', mean('preValidation', 'preHandler')],
      [
        'handler but its SQL statements (for a write: the pool, BEGIN and COMMIT)',
        mean('preHandler', 'preSerialization') - statements,
      ],
      ['SQL statements (driver, row decoding; on PGlite the engine too)', statements],
      ['serialization', mean('preSerialization', 'onSend')],
      [
        'onSend hooks, write, log line (and the delivery worker woken by a write)',
        mean('onSend', 'onResponse'),
      ],
      [
        'everything else (the HTTP client, HTTP parsing, routing)',
        total - mean('onRequest', 'onResponse'),
      ],
    ];
    lines.push(`${name}: ${label}: ${Math.round(total)} µs of CPU per request`);
    for (const [phase, micros] of rows) {
      lines.push(`  ${String(Math.round(micros)).padStart(5)} µs  ${phase}`);
    }
  }
  await app.close();
  await worker.close();
  return lines;
}

const dataDir = mkdtempSync(join(tmpdir(), 'followup-phases-'));
try {
  const pglite = await openPGliteDatabase({ dataDir });
  try {
    console.log((await phasesOf('pglite', pglite)).join('\n'));
  } finally {
    await pglite.close();
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
const url = process.env.FOLLOWUP_TEST_DATABASE_URL ?? process.env.DATABASE_URL;
if (url) {
  const schema = `phases_${randomBytes(4).toString('hex')}`;
  const postgres = await openPostgresDatabase({ connectionString: url, schema });
  try {
    console.log((await phasesOf('postgres', postgres)).join('\n'));
  } finally {
    await postgres.query(`DROP SCHEMA ${schema} CASCADE`);
    await postgres.close();
  }
}

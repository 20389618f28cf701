#!/usr/bin/env node
// Does a failed sign-in take the same time whether the e-mail is unknown or the password is
// wrong? (The web application's promise: the same message and comparable time, so that timing
// does not tell which e-mails have an account.) On the built package (`npm run build` first):
// one user invited with `users invite` and given a password through its sign-in link, then
// POST /signin alternating an unknown e-mail and the user's e-mail with a wrong password, through
// app.inject (the server's own work, without a network's noise). The sign-in throttle and the
// per-address limit are set far above what the benchmark sends, which changes nothing of the work
// an attempt does (the failure is still counted and audited).
//
//   node bench/sign-in-timing.bench.mjs [--rounds 300] [--database-url postgres://…]
//
// Writes bench/sign-in-timing-results.json and .md, and prints the table.
import { writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import {
  buildServer,
  migrate,
  openPGliteDatabase,
  openPostgresDatabase,
  runCli,
} from '../dist/index.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '300' },
    warmup: { type: 'string', default: '20' },
    'database-url': { type: 'string' },
  },
});
const rounds = Number(values.rounds);
const warmup = Number(values.warmup);
const driver = values['database-url'] ? 'postgres' : 'pglite';
const database = values['database-url']
  ? await openPostgresDatabase({ connectionString: values['database-url'] })
  : await openPGliteDatabase();
await migrate(database);

const knownEmail = `timing-${Date.now()}@example.com`;
const password = 'the right password for timing';
let printed = '';
const code = await runCli(
  ['users', 'invite', '--email', knownEmail, '--role', 'READONLY', '--json'],
  {
    stdout: {
      write: (text) => {
        printed += text;
      },
    },
    stderr: { write: (text) => void process.stderr.write(text) },
    env: {},
    database,
  },
);
if (code !== 0) throw new Error(`users invite exited ${code}`);
const { signInUrl } = JSON.parse(printed);

const unlimited = { limit: 1_000_000_000, windowSeconds: 60 };
const app = buildServer({
  database,
  logger: false,
  rateLimit: false,
  addressRateLimit: unlimited,
  signInThrottle: { perAccount: 1_000_000_000, perAddress: 1_000_000_000 },
});
await app.ready();

const origin = 'http://localhost:80';
let attempt = 0;
async function post(url, fields) {
  attempt += 1;
  // A different client address each time, as the attempts of many clients would come.
  const remoteAddress = `10.${(attempt >> 16) & 255}.${(attempt >> 8) & 255}.${attempt & 255}`;
  const started = process.hrtime.bigint();
  const response = await app.inject({
    method: 'POST',
    url,
    remoteAddress,
    headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  return { ms, response };
}

const set = await post(new URL(signInUrl).pathname, { password, confirmation: password });
if (set.response.statusCode !== 303) throw new Error(`set password: ${set.response.statusCode}`);
const right = await post('/signin', { email: knownEmail, password });
if (right.response.statusCode !== 303)
  throw new Error(`right password: ${right.response.statusCode}`);

const kinds = {
  'unknown e-mail': (round) => ({
    email: `nobody-${round}@example.com`,
    password: `wrong ${round} password`,
  }),
  'wrong password': (round) => ({ email: knownEmail, password: `wrong ${round} password` }),
};

// What the page says, without the echoed e-mail: it must be the same for both kinds.
const message = (body) => /role="alert">([^<]*)</.exec(body)?.[1];

// The first failure of each kind in this process, before any warm-up (the decoy hash of an
// unknown e-mail is made on first use: is the first one slower?).
const first = {};
for (const [kind, fields] of Object.entries(kinds)) {
  const { ms, response } = await post('/signin', fields(-1));
  first[kind] = { ms, status: response.statusCode, message: message(response.body) };
}

for (let round = 0; round < warmup; round++) {
  for (const fields of Object.values(kinds)) await post('/signin', fields(round));
}

const times = Object.fromEntries(Object.keys(kinds).map((kind) => [kind, []]));
const answers = new Set();
for (let round = 0; round < rounds; round++) {
  // Alternate, and swap which goes first every round, so that drift hits both alike.
  const order = round % 2 === 0 ? Object.keys(kinds) : Object.keys(kinds).reverse();
  for (const kind of order) {
    const { ms, response } = await post('/signin', kinds[kind](round));
    times[kind].push(ms);
    answers.add(`${response.statusCode} ${message(response.body)}`);
  }
}
await app.close();
await database.close();

function quantile(sorted, q) {
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return sorted[low] + (sorted[high] - sorted[low]) * (at - low);
}
const round2 = (value) => Math.round(value * 100) / 100;
const stats = Object.fromEntries(
  Object.entries(times).map(([kind, list]) => {
    const sorted = [...list].sort((a, b) => a - b);
    return [
      kind,
      {
        n: sorted.length,
        medianMs: round2(quantile(sorted, 0.5)),
        p90Ms: round2(quantile(sorted, 0.9)),
        meanMs: round2(sorted.reduce((sum, value) => sum + value, 0) / sorted.length),
        minMs: round2(sorted[0]),
      },
    ];
  }),
);
const unknown = stats['unknown e-mail'];
const wrong = stats['wrong password'];
const results = {
  date: new Date().toISOString(),
  node: process.version,
  driver,
  cores: availableParallelism(),
  loadAverage: loadavg().map(round2),
  rounds,
  warmup,
  answers: [...answers],
  first: Object.fromEntries(
    Object.entries(first).map(([kind, value]) => [kind, { ...value, ms: round2(value.ms) }]),
  ),
  stats,
  ratio: {
    median: round2(unknown.medianMs / wrong.medianMs),
    p90: round2(unknown.p90Ms / wrong.p90Ms),
  },
};

const table = [
  `Sign-in timing (${driver}, ${rounds} rounds of each after ${warmup} of warm-up, Node ${process.version}, ${results.date}; ${results.cores} cores, load average ${results.loadAverage.join(', ')})`,
  '',
  '| failed sign-in | median | p90 | mean | min | first of the process (one sample) |',
  '|---|---|---|---|---|---|',
  ...Object.entries(stats).map(
    ([kind, value]) =>
      `| ${kind} | ${value.medianMs} ms | ${value.p90Ms} ms | ${value.meanMs} ms | ${value.minMs} ms | ${results.first[kind].ms} ms |`,
  ),
  '',
  `Ratio unknown e-mail / wrong password: median ${results.ratio.median}, p90 ${results.ratio.p90}.`,
  `Answers seen (status and message): ${results.answers.map((answer) => `\`${answer}\``).join(', ')}.`,
  '',
].join('\n');
process.stdout.write(`${table}\n`);
const base = new URL(
  `./sign-in-timing-results${driver === 'postgres' ? '-postgres' : ''}`,
  import.meta.url,
).pathname;
writeFileSync(`${base}.json`, `${JSON.stringify(results, null, 2)}\n`);
writeFileSync(`${base}.md`, `${table}`);

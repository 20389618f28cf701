#!/usr/bin/env node
// Verify throughput of @followup/webhooks (the built package, as users get it) for 200 B, 2 KB,
// 64 KB and 1 MB bodies, against the raw limit measured in the same run and against the
// libraries people use today. Writes bench/results.json and bench/results.md.
//
// Method: for each body size, several rounds; in each round every contender runs for about the
// same time, in a rotating order, and its throughput is divided by the raw limit's throughput of
// the same round. The reported ratio is the median of those per-round ratios, so that a noisy
// neighbour on the machine slows both sides of a ratio alike.
import { createHmac, timingSafeEqual, webcrypto } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { Webhook as SvixWebhook } from 'svix';
import { machineDescription, median } from '../../../scripts/bench/measure.mjs';
import * as followup from '../dist/index.js';
import * as followupWeb from '../dist/web.js';

const SIZES = [
  ['200 B', 200],
  ['2 KB', 2 * 1024],
  ['64 KB', 64 * 1024],
  ['1 MB', 1024 * 1024],
];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 11);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 200);
const SECRET = 'whsec_bench_5f1c0a7e9d3b4c2a8e6f0d1b3c5a7e9f';
const SW_SECRET = `whsec_${Buffer.from('bench-standard-webhooks-secret!!').toString('base64')}`;
const stripe = new Stripe('sk_test_bench_only');

function jsonBody(size) {
  const head = '{"id":"evt_bench","object":"event","type":"contact.created","data":"';
  const tail = '"}';
  return Buffer.from(head + 'x'.repeat(size - head.length - tail.length) + tail);
}

function contenders(body) {
  const text = body.toString('utf8');
  const now = Math.floor(Date.now() / 1000);
  const signed = Buffer.concat([Buffer.from(`${now}.`), body]);
  const digest = createHmac('sha256', SECRET).update(signed).digest();
  const header = `t=${now},v1=${digest.toString('hex')}`;
  const options = { secret: SECRET, now };
  const octokitSignature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
  const standard = new StandardWebhook(SW_SECRET);
  const svix = new SvixWebhook(SW_SECRET);
  const swHeaders = {
    'webhook-id': 'msg_bench',
    'webhook-timestamp': String(now),
    'webhook-signature': standard.sign('msg_bench', new Date(now * 1000), text),
  };
  const svixHeaders = {
    'svix-id': swHeaders['webhook-id'],
    'svix-timestamp': swHeaders['webhook-timestamp'],
    'svix-signature': swHeaders['webhook-signature'],
  };
  return {
    sync: {
      'raw limit (createHmac + timingSafeEqual)': () =>
        timingSafeEqual(createHmac('sha256', SECRET).update(signed).digest(), digest),
      '@followup/webhooks verifySignature': () => followup.verifySignature(body, header, options),
      'stripe webhooks.constructEvent': () =>
        stripe.webhooks.constructEvent(body, header, SECRET, 10 ** 9),
      'standardwebhooks Webhook.verify': () => standard.verify(text, swHeaders),
      'svix Webhook.verify': () => svix.verify(text, svixHeaders),
    },
    async: {
      '@octokit/webhooks-methods verify': () => octokitVerify(SECRET, text, octokitSignature),
    },
    web: {
      setup: async () => {
        const key = await webcrypto.subtle.importKey(
          'raw',
          Buffer.from(SECRET),
          { name: 'HMAC', hash: 'SHA-256' },
          false,
          ['verify'],
        );
        return {
          'raw Web Crypto limit (subtle.verify, key imported once)': () =>
            webcrypto.subtle.verify('HMAC', key, digest, signed),
          '@followup/webhooks/web verifySignature': () =>
            followupWeb.verifySignature(body, header, options),
        };
      },
    },
  };
}

/** Runs `fn` for about `ms` milliseconds; returns [operations, nanoseconds]. */
function runSync(fn, ms) {
  let operations = 0;
  let batch = 1;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(Math.round(ms * 1e6));
  let now = start;
  while (now < deadline) {
    for (let i = 0; i < batch; i++) fn();
    operations += batch;
    if (batch < 256) batch *= 2;
    now = process.hrtime.bigint();
  }
  return [operations, Number(now - start)];
}

async function runAsync(fn, ms) {
  let operations = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(Math.round(ms * 1e6));
  let now = start;
  while (now < deadline) {
    for (let i = 0; i < 8; i++) await fn();
    operations += 8;
    now = process.hrtime.bigint();
  }
  return [operations, Number(now - start)];
}

// A round is cut into SLICES short turns, alternating the contenders, so that a burst of load
// from elsewhere on the machine falls on all of them alike.
const SLICES = 10;

async function measureRound(group, run) {
  const totals = Object.fromEntries(Object.keys(group).map((name) => [name, [0, 0]]));
  const names = Object.keys(group);
  for (let slice = 0; slice < SLICES; slice++) {
    const order = names.map((_, index) => names[(index + slice) % names.length]);
    for (const name of order) {
      const [operations, nanoseconds] = await run(group[name], ROUND_MS / SLICES);
      totals[name][0] += operations;
      totals[name][1] += nanoseconds;
    }
  }
  return Object.fromEntries(names.map((name) => [name, (totals[name][0] / totals[name][1]) * 1e9]));
}

async function benchSize(label, size) {
  const body = jsonBody(size);
  const { sync, async: asyncContenders, web } = contenders(body);
  const webContenders = await web.setup();
  const rawName = Object.keys(sync)[0];
  const webRawName = Object.keys(webContenders)[0];
  const samples = {};
  const record = (name, opsPerSecond, baseline) => {
    samples[name] ??= { opsPerSecond: [], ratio: [] };
    samples[name].opsPerSecond.push(opsPerSecond);
    samples[name].ratio.push(opsPerSecond / baseline);
  };
  // Warm up every contender (JIT, key caches) before measuring.
  for (const fn of Object.values(sync)) runSync(fn, 30);
  for (const fn of Object.values(asyncContenders)) await runAsync(fn, 30);
  for (const fn of Object.values(webContenders)) await runAsync(fn, 30);
  for (let round = 0; round < ROUNDS; round++) {
    const results = await measureRound(sync, runSync);
    Object.assign(results, await measureRound(asyncContenders, runAsync));
    for (const name of Object.keys(results)) record(name, results[name], results[rawName]);
    const webResults = await measureRound(webContenders, runAsync);
    for (const name of Object.keys(webResults)) {
      record(name, webResults[name], webResults[webRawName]);
    }
  }
  const rows = Object.entries(samples).map(([name, { opsPerSecond, ratio }]) => ({
    name,
    // Only the Web Crypto contenders are measured against raw Web Crypto (a test for '/web' in
    // the name would also catch '@followup/webhooks' and '@octokit/webhooks-methods').
    baseline: name in webContenders ? webRawName : rawName,
    opsPerSecond: Math.round(median(opsPerSecond)),
    ratio: Number(median(ratio).toFixed(3)),
  }));
  return { label, bytes: size, rows };
}

const results = [];
for (const [label, size] of SIZES) {
  const result = await benchSize(label, size);
  results.push(result);
  console.log(`\n${label}`);
  for (const row of result.rows) {
    console.log(
      `  ${row.name.padEnd(58)} ${String(row.opsPerSecond).padStart(9)} ops/s  ${row.ratio.toFixed(3)}x`,
    );
  }
}

const machine = machineDescription();
const date = new Date().toISOString();
writeFileSync(
  new URL('./results.json', import.meta.url),
  `${JSON.stringify({ date, machine, rounds: ROUNDS, roundMs: ROUND_MS, results }, null, 2)}\n`,
);
const lines = [
  '# Verify throughput',
  '',
  `Measured ${date} on ${machine}, by \`npm run bench\` (bench/verify.bench.mjs), ${ROUNDS} rounds of`,
  `${ROUND_MS} ms per contender, each round cut into ${SLICES} alternating turns. Ratios are medians of per-round ratios to the raw limit of the same`,
  'round: `createHmac` + `timingSafeEqual` over the same signed bytes for the synchronous',
  'contenders, `crypto.subtle.verify` with the key imported once for the Web Crypto ones. Every',
  'contender verifies a valid signature in its own scheme; stripe, standardwebhooks and svix',
  'also parse the JSON body, which is part of what their users pay.',
  '',
];
for (const { label, rows } of results) {
  lines.push(`## ${label}`, '', '| Contender | ops/s | × its raw limit |', '| --- | ---: | ---: |');
  for (const row of rows) {
    lines.push(
      `| ${row.name} | ${row.opsPerSecond.toLocaleString('en-US')} | ${row.ratio.toFixed(3)} |`,
    );
  }
  lines.push('');
}
writeFileSync(new URL('./results.md', import.meta.url), lines.join('\n'));

// Quote the ratios in the package README, between its bench markers.
const short = (name) => name.split(' ')[0];
const contenderNames = results[0].rows.map((row) => row.name);
const summary = [
  `Throughput as a multiple of the raw limit (median of ${ROUNDS} paired rounds; ${machine}; ${date.slice(0, 10)}):`,
  '',
  `| Body | ${contenderNames.map((name) => (name.startsWith('raw') ? `${short(name)} ${name.includes('Web') ? 'Web Crypto' : 'node:crypto'}` : short(name))).join(' | ')} |`,
  `| --- | ${contenderNames.map(() => '---:').join(' | ')} |`,
  ...results.map(
    ({ label, rows }) =>
      `| ${label} | ${rows.map((row) => (row.name.startsWith('raw') ? `${row.opsPerSecond.toLocaleString('en-US')}/s` : `${row.ratio.toFixed(2)}×`)).join(' | ')} |`,
  ),
  '',
  'The raw columns give operations per second; the others their ratio to the raw limit of their',
  'kind (`@followup/webhooks/web` to raw Web Crypto). Each peer verifies its own scheme:',
  '`@octokit/webhooks-methods` signs the body alone (no timestamp, so no replay check) and is timed',
  'through the asynchronous loop; stripe, standardwebhooks and svix also parse the JSON body.',
  'Full figures: [bench/results.md](bench/results.md).',
].join('\n');
const readmeUrl = new URL('../README.md', import.meta.url);
const readme = readFileSync(readmeUrl, 'utf8');
const updated = readme.replace(
  /<!-- bench:start -->[\s\S]*<!-- bench:end -->/,
  `<!-- bench:start -->\n${summary}\n<!-- bench:end -->`,
);
writeFileSync(readmeUrl, updated);
console.log('\nwrote bench/results.md, bench/results.json and the README summary');

#!/usr/bin/env node
// How the embedded database is spoken to, measured (docs/decisions.md, "PGlite through
// pg-protocol over its raw entry"): a list read of 50 contacts and a single-row insert, each run
// alone, one after the other, through
//
//   protocol   the built storage layer (../dist): pg-protocol's serializer and parser over
//              PGlite's raw streaming entry, named statements, our row decoder
//   baseline   a storage layer built from an older commit, when BENCH_BASELINE names its
//              dist/index.js (the hand-written protocol, up to the commit that replaced it:
//              build that commit's packages/server and copy its dist/ to bench/baseline/dist)
//   query      PGlite's own query API, `pglite.query(sql, params)` (its serializers, its
//              parser, an unnamed statement parsed and described on every call)
//   execute    PGlite's execProtocol with its own parser, on the same named statements as
//              `protocol` (pg-protocol's serializer; rows decoded from its dataRow messages)
//
// Each variant has its own in-memory PGlite, migrated and loaded with the same 1,000 contacts.
// The variants alternate within each round (their order turns from round to round) and each
// phase is timed in process CPU and in elapsed time; the machine is shared, so only ratios within
// one round mean anything: the report gives each variant's median per operation and the median,
// over the rounds, of its ratio to `protocol`.
//
// With BENCH_DURABLE=1, `protocol` and `baseline` alone, each on a data directory of its own with
// group commit (every write waits for its WAL fsync), to see what the durability flush costs
// reads and writes.
//
// usage: node bench/pglite-protocol.bench.mjs   (BENCH_ROUNDS=9 BENCH_OPERATIONS=300)
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import pgUtils from 'pg/lib/utils.js';
import { serialize } from 'pg-protocol';
import { migrate, openPGliteDatabase } from '../dist/index.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const OPERATIONS = Number(process.env.BENCH_OPERATIONS ?? 300);
const CONTACTS = 1000;

const LIST =
  'SELECT id, first_name, last_name, lifecycle, email, phone, created_at, updated_at, created_at::text AS cursor_at FROM contacts ORDER BY created_at, id LIMIT $1 OFFSET $2';
const INSERT =
  'INSERT INTO contacts (id, first_name, last_name, lifecycle, email, phone, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id, first_name, last_name, lifecycle, email, phone, created_at, updated_at';
const SEED = `INSERT INTO contacts (id, first_name, last_name, lifecycle, email, created_at, updated_at)
  SELECT 'con_' || lpad(i::text, 26, '0'), 'First' || i, 'Last' || i, 'LEAD',
         'contact' || i || '@example.com',
         timestamptz '2026-01-01T00:00:00Z' + i * interval '1 millisecond',
         timestamptz '2026-01-01T00:00:00Z' + i * interval '1 millisecond'
    FROM generate_series(1, $1::integer) AS i`;

// `timestamptz` as the storage layer answers it, an ISO string (the sessions run in UTC).
const isoTimestamp = (text) =>
  `${text.slice(0, 10)}T${text.slice(11, 19)}.${text.slice(20, 23).padEnd(3, '0')}Z`;
const TIMESTAMPTZ = pg.types.builtins.TIMESTAMPTZ;

function textParser(oid) {
  if (oid === TIMESTAMPTZ) return isoTimestamp;
  if (oid === pg.types.builtins.INT4) return (text) => Number.parseInt(text, 10);
  if (oid === pg.types.builtins.TEXT || oid === pg.types.builtins.VARCHAR) return (text) => text;
  return pg.types.getTypeParser(oid, 'text');
}

/** A `Database` over a PGlite of our own, for `migrate` (its transaction and its queries). */
function rawDatabase(pglite) {
  const query = async (sql, params = []) => {
    if (params.length > 0) return pglite.query(sql, params);
    const results = await pglite.exec(sql);
    return results.at(-1) ?? { rows: [] };
  };
  return {
    driver: 'pglite',
    query,
    transaction: (callback) =>
      pglite.transaction((transaction) =>
        callback({
          query: (sql, params = []) =>
            params.length > 0
              ? transaction.query(sql, params)
              : transaction.exec(sql).then((r) => r.at(-1)),
        }),
      ),
    close: () => pglite.close(),
  };
}

async function openRaw() {
  const pglite = new PGlite();
  await pglite.waitReady;
  await pglite.exec("SET TIME ZONE 'UTC'; SET DateStyle = 'ISO'");
  await migrate(rawDatabase(pglite));
  return pglite;
}

/** PGlite's query API. */
async function queryVariant() {
  const pglite = await openRaw();
  const parsers = { [TIMESTAMPTZ]: isoTimestamp };
  return {
    name: 'query',
    query: (sql, params) => pglite.query(sql, params, { parsers }),
    close: () => pglite.close(),
  };
}

/** PGlite's execProtocol and its parser, on named statements. */
async function executeVariant() {
  const pglite = await openRaw();
  const statements = new Map();
  const sync = serialize.sync();
  return {
    name: 'execute',
    async query(sql, params) {
      let statement = statements.get(sql);
      const messages = [];
      if (statement === undefined) {
        statement = { name: `e${statements.size + 1}`, decode: undefined };
        statements.set(sql, statement);
        messages.push(
          serialize.parse({ name: statement.name, text: sql }),
          serialize.describe({ type: 'S', name: statement.name }),
        );
      }
      messages.push(
        serialize.bind({
          statement: statement.name,
          values: params,
          valueMapper: pgUtils.prepareValue,
        }),
        serialize.execute(),
        sync,
      );
      const { messages: answer } = await pglite.execProtocol(Buffer.concat(messages), {
        syncToFs: false,
      });
      const rows = [];
      for (const message of answer) {
        if (message.name === 'rowDescription') {
          const names = message.fields.map((field) => field.name);
          const parsers = message.fields.map((field) => textParser(field.dataTypeID));
          statement.decode = (fields) => {
            const row = {};
            for (let index = 0; index < names.length; index++) {
              const text = fields[index];
              row[names[index]] = text === null ? null : parsers[index](text);
            }
            return row;
          };
        } else if (message.name === 'dataRow') {
          rows.push(statement.decode(message.fields));
        }
      }
      return { rows };
    },
    close: () => pglite.close(),
  };
}

const DURABLE = process.env.BENCH_DURABLE === '1';

/** The storage layer of a built dist/index.js, in memory or (BENCH_DURABLE) on a data directory. */
async function layerVariant(name, openPGlite) {
  const dataDir = DURABLE ? await mkdtemp(join(tmpdir(), 'followup-bench-')) : undefined;
  const database = await openPGlite(dataDir === undefined ? {} : { dataDir });
  await migrate(database);
  return {
    name,
    query: (sql, params) => database.query(sql, params),
    close: async () => {
      await database.close();
      if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

const variants = [await layerVariant('protocol', openPGliteDatabase)];
const baselinePath = process.env.BENCH_BASELINE ?? resolve('bench/baseline/dist/index.js');
if (existsSync(baselinePath)) {
  const baseline = await import(pathToFileURL(baselinePath).href);
  variants.push(await layerVariant('baseline', baseline.openPGliteDatabase));
} else {
  console.error(`No baseline at ${baselinePath}: measuring without it.`);
}
if (!DURABLE) variants.push(await queryVariant(), await executeVariant());
for (const variant of variants) await variant.query(SEED, [CONTACTS]);

let sequence = 0;
const insertParams = () => {
  const now = new Date(Date.UTC(2026, 5, 1) + sequence).toISOString();
  return [
    `con_bench${String(sequence++).padStart(17, '0')}`,
    'Bench',
    'Insert',
    'LEAD',
    null,
    null,
    now,
    now,
  ];
};
const phases = {
  list: (variant) => variant.query(LIST, [50, 100]),
  insert: (variant) => variant.query(INSERT, insertParams()),
};

/**
 * Process CPU and elapsed time per operation, in µs, over `OPERATIONS` runs of `phase` one after
 * the other.
 */
async function measure(variant, phase) {
  const started = process.cpuUsage();
  const startedAt = performance.now();
  for (let index = 0; index < OPERATIONS; index++) await phase(variant);
  const elapsed = performance.now() - startedAt;
  const used = process.cpuUsage(started);
  return { cpu: (used.user + used.system) / OPERATIONS, wall: (elapsed * 1000) / OPERATIONS };
}

// Warm: every statement prepared, the engines' caches and the JIT settled.
for (const variant of variants) {
  for (const phase of Object.values(phases)) {
    for (let index = 0; index < 200; index++) await phase(variant);
  }
}
const samples = {};
for (let round = 0; round < ROUNDS; round++) {
  const order = variants.map((_, index) => variants[(index + round) % variants.length]);
  for (const [phaseName, phase] of Object.entries(phases)) {
    for (const variant of order) {
      const cost = await measure(variant, phase);
      samples[phaseName] ??= {};
      samples[phaseName][variant.name] ??= [];
      samples[phaseName][variant.name].push(cost);
    }
  }
}
for (const variant of variants) await variant.close();

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const range = (values, digits) =>
  `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
console.log(
  `${ROUNDS} rounds of ${OPERATIONS} operations per variant and phase${DURABLE ? ', on data directories with group commit' : ', in memory'}; µs per operation, medians (range)`,
);
console.log(
  '| Phase | Variant | CPU µs/op | CPU ratio to protocol | Elapsed µs/op | Elapsed ratio to protocol |',
);
console.log('|---|---|---|---|---|---|');
for (const [phaseName, byVariant] of Object.entries(samples)) {
  for (const variant of variants) {
    const cells = ['cpu', 'wall'].map((key) => {
      const costs = byVariant[variant.name].map((sample) => sample[key]);
      const ratios = costs.map((cost, round) => cost / byVariant.protocol[round][key]);
      return `${median(costs).toFixed(1)} (${range(costs, 0)}) | ${median(ratios).toFixed(3)} (${range(ratios, 2)})`;
    });
    console.log(`| ${phaseName} | ${variant.name} | ${cells.join(' | ')} |`);
  }
}

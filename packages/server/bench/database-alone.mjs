#!/usr/bin/env node
// The database alone, for the benchmark's floor: the SQL that the server runs for a list page or
// a create, through the server's own storage layer (named statements; on PGlite the engine in
// this process and our row decoder, on PostgreSQL the `pg` driver), from CONCURRENCY callers at
// once, with no HTTP, no authentication and no JSON. What this process and the database spend
// per statement here is spent by any server that answers the same request from the same
// database, before its first byte of HTTP.
//
// usage: database-alone.mjs <data directory | postgres URL> <list | create | create-in-transaction>
//   <seconds> <concurrency>
// Prints "ready" once the database is open and warm, waits for a line on standard input, runs,
// prints `{"operations":N,"seconds":S}`, then waits for standard input to end (so that the
// benchmark can read this process's CPU time before it exits).
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { openPGliteDatabase, openPostgresDatabase } from '../dist/index.js';

const [target, scenario, seconds, concurrency] = process.argv.slice(2);
const database = target.startsWith('postgres')
  ? await openPostgresDatabase({ connectionString: target })
  : await openPGliteDatabase({ dataDir: target });

// The statements as the server sends them (bench/results.md shows how they were read: the
// statement log of a PostgreSQL server while it answered one request of each kind).
const LIST =
  'SELECT id, first_name, last_name, lifecycle, email, phone, created_at, updated_at, created_at::text AS cursor_at FROM contacts ORDER BY created_at, id LIMIT $1 OFFSET $2';
// A create: one statement, committed on its own (the insert, its audit entry and its outbox
// event with the endpoints that take it, written dispatched when none does), as
// stores/resource-create.ts sends it: the text a server's create sent, copied from its
// statements (migration 27 added `fan_out_to`).
// The notification for other instances is sent after the commit, at most once per 10 ms
// (outbox/outbox-announcer.ts), and is left out here.
const CREATE = `WITH inserted AS (INSERT INTO contacts (id, first_name, last_name, lifecycle, email, phone, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id, first_name, last_name, lifecycle, email, phone, created_at, updated_at), audit_entry AS (
       INSERT INTO audit_entries
         (id, occurred_at, action, actor_type, actor_id, target_type, target_id, metadata)
       VALUES ($9, $10, $11, $12, $13, $14, $15, $16)), outbox_event AS (
       INSERT INTO outbox_events
              (id, event, data, previous_attributes, created_at, fan_out_to, dispatched_at)
       SELECT $20::text, $17::text, $19::jsonb, $21::jsonb, $18::timestamptz,
              CASE WHEN cardinality(takers.ids) > 0 THEN takers.ids END,
              CASE WHEN cardinality(takers.ids) = 0 THEN $18::timestamptz END
         FROM (SELECT ARRAY(SELECT endpoint.id FROM webhook_endpoints AS endpoint
                 WHERE endpoint.state = 'active'
                   AND (CASE WHEN $17::text = ANY (ARRAY['endpoint.failing', 'endpoint.disabled', 'endpoint.enabled', 'endpoint.recovered']::text[])
                THEN $17::text = ANY (endpoint.events)
                     AND endpoint.id <> coalesce($19::jsonb->>'id', '')
                     AND (endpoint.subscriber IS NULL
                          OR endpoint.subscriber = $19::jsonb->>'subscriber')
                ELSE $17::text = ANY (endpoint.events)
                     OR '*' = ANY (endpoint.events) END)
                   AND endpoint.created_at <= $18::timestamptz
                 ORDER BY endpoint.created_at, endpoint.id) AS ids) AS takers
       RETURNING id, dispatched_at IS NULL AS pending) SELECT inserted.*, (SELECT pending FROM outbox_event) AS event_pending FROM inserted`;

// The create as the server sent it before (up to 2026-11-24): BEGIN, the insert, the audit
// entry with the outbox event and its notification, COMMIT; four round trips. Measured beside
// the one above to show what the single statement and the notification's move save.
const INSERT =
  'INSERT INTO contacts (id, first_name, last_name, lifecycle, email, phone, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id, first_name, last_name, lifecycle, email, phone, created_at, updated_at';
const RECORD = `WITH audit_entry AS (
       INSERT INTO audit_entries
         (id, occurred_at, action, actor_type, actor_id, target_type, target_id, metadata)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)), outbox_event AS (
       INSERT INTO outbox_events (id, event, data, previous_attributes, created_at)
       VALUES ($9, $10, $11, $12, $13) RETURNING id) SELECT pg_notify($14, '') FROM outbox_event`;

let sequence = 0;
const run = randomBytes(4).toString('hex');
const id = (prefix) => `${prefix}_bench${run}${String(sequence++).padStart(12, '0')}`;

async function once() {
  if (scenario === 'list') {
    await database.query(LIST, [51, 100]);
    return;
  }
  const now = new Date().toISOString();
  const contactId = id('con');
  const contact = [contactId, 'Bench', 'Create', 'LEAD', null, null, now, now];
  const record = [
    id('aud'),
    now,
    'contact.created',
    'service_account',
    'sa_bench',
    'contact',
    contactId,
    '{"fields":["firstName","lastName","lifecycle"]}',
    id('evt'),
    'contact.created',
    JSON.stringify({
      id: contactId,
      firstName: 'Bench',
      lastName: 'Create',
      lifecycle: 'LEAD',
      createdAt: now,
      updatedAt: now,
    }),
    null,
    now,
    'followup_outbox',
  ];
  if (scenario === 'create') {
    // The event's parameters in the order the statement numbers them: kind, time, data, id,
    // previous attributes.
    const [eventId, kind, data, previous, at] = record.slice(8, 13);
    await database.query(CREATE, [
      ...contact,
      ...record.slice(0, 8),
      kind,
      at,
      data,
      eventId,
      previous,
    ]);
    return;
  }
  await database.transaction(async (transaction) => {
    await transaction.query(INSERT, contact);
    await transaction.query(RECORD, record);
  });
}

async function loop(until) {
  let count = 0;
  while (performance.now() < until) {
    await once();
    count++;
  }
  return count;
}

// Warm: every connection of the pool prepares its statements.
const warm = performance.now() + 1000;
await Promise.all(Array.from({ length: Number(concurrency) }, () => loop(warm)));
const input = createInterface({ input: process.stdin });
const lines = input[Symbol.asyncIterator]();
process.stdout.write('ready\n');
await lines.next();
const started = performance.now();
const until = started + Number(seconds) * 1000;
const counts = await Promise.all(Array.from({ length: Number(concurrency) }, () => loop(until)));
const elapsed = (performance.now() - started) / 1000;
process.stdout.write(
  `${JSON.stringify({ operations: counts.reduce((a, b) => a + b, 0), seconds: elapsed })}\n`,
);
await lines.next();
await database.close();

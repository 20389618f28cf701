import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, testDriver } from '../../test/support/database.js';
import type { Database } from '../storage/database.js';
import { readDeliveryTableStatistics } from '../stores/planner-statistics-store.js';
import { createDeliveryWorker } from './delivery-worker.js';
import { analyzeNewDeliveryTables, watchFirstAnalyze } from './first-analyze.js';

// PostgreSQL's statistics views count a connection's changes when it flushes them (at most once
// a second, or when asked to): each write here asks, so that the next look sees it.
async function insertEvents(database: Database, from: number, count: number): Promise<void> {
  await database.transaction(async (transaction) => {
    await transaction.query(
      `INSERT INTO outbox_events (id, event, data, created_at)
       SELECT 'evt_stat_' || n, 'contact.created', '{}', now()
         FROM generate_series($1::int, $1::int + $2::int - 1) AS n`,
      [from, count],
    );
    await transaction.query('SELECT pg_stat_force_next_flush()');
  });
}

async function insertDeliveries(database: Database, count: number): Promise<void> {
  await database.transaction(async (transaction) => {
    await transaction.query(
      `INSERT INTO webhook_endpoints (id, url, events, state, secret, created_at, updated_at)
       VALUES ('wep_stat', 'https://stat.example.com/', '{*}', 'active', 'whsec_x', now(), now())`,
    );
    await transaction.query(
      `INSERT INTO deliveries (id, event_id, endpoint_id, state, attempts, next_attempt_at, created_at)
       SELECT 'dlv_stat_' || n, 'evt_stat_' || n, 'wep_stat', 'pending', 0, now(), now()
         FROM generate_series(0, $1::int - 1) AS n`,
      [count],
    );
    await transaction.query('SELECT pg_stat_force_next_flush()');
  });
}

/**
 * A watch whose looks are recorded and never run: each look schedules the next one (recorded in
 * `scheduled`, and `rescheduled` resolves at the first) or ends the watch.
 */
function watchOnce(database: Database) {
  const scheduled: { ms: number; cancelled: boolean }[] = [];
  const errors: unknown[] = [];
  let settle: () => void = () => {};
  const rescheduled = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const watch = watchFirstAnalyze({
    database,
    onError: (error) => errors.push(error),
    intervalMs: 250,
    schedule: (_run, ms) => {
      const entry = { ms, cancelled: false };
      scheduled.push(entry);
      settle();
      return () => {
        entry.cancelled = true;
      };
    },
  });
  return { scheduled, errors, rescheduled, watch };
}

describe.runIf(testDriver === 'postgres')("a new database's first statistics", () => {
  let database: Database;

  beforeAll(async () => {
    database = await openTestDatabase();
    // Only the worker analyzes these tables here: autovacuum's visits would race the test.
    await database.query(
      'ALTER TABLE deliveries SET (autovacuum_enabled = false); ' +
        'ALTER TABLE outbox_events SET (autovacuum_enabled = false)',
    );
  });

  afterAll(async () => {
    await database.close();
  });

  it('analyzes each delivery table once it has changed by the threshold, then has nothing to do', async () => {
    expect(await analyzeNewDeliveryTables(database, 1_000)).toEqual({ analyzed: [], done: false });

    await insertEvents(database, 0, 999);
    expect(await analyzeNewDeliveryTables(database, 1_000)).toEqual({ analyzed: [], done: false });
    await insertEvents(database, 999, 1);
    expect(await analyzeNewDeliveryTables(database, 1_000)).toEqual({
      analyzed: ['outbox_events'],
      done: false,
    });
    expect(await readDeliveryTableStatistics(database)).toEqual([
      { table: 'deliveries', analyzed: false, changed: 0 },
      { table: 'outbox_events', analyzed: true, changed: 0 },
    ]);

    await insertDeliveries(database, 1_000);
    expect(await analyzeNewDeliveryTables(database, 1_000)).toEqual({
      analyzed: ['deliveries'],
      done: true,
    });
    // Analyzed once, a table is autovacuum's again, however much it changes.
    await insertEvents(database, 1_000, 1_000);
    expect(await analyzeNewDeliveryTables(database, 1_000)).toEqual({ analyzed: [], done: true });
  });

  it('looks again every interval until both tables have statistics, and stops when told', async () => {
    // Neither table of a new database changed: the first look leaves a second one due, which
    // stop cancels.
    const fresh = await openTestDatabase();
    try {
      const { scheduled, errors, rescheduled, watch } = watchOnce(fresh);
      await rescheduled;
      expect(scheduled).toEqual([{ ms: 250, cancelled: false }]);
      await watch.stop();
      expect(scheduled).toEqual([{ ms: 250, cancelled: true }]);
      expect(errors).toEqual([]);
    } finally {
      await fresh.close();
    }

    // Both tables analyzed (by the test above): one look, and none after it.
    const done = watchOnce(database);
    await done.watch.settled();
    expect(done.scheduled).toEqual([]);
    await done.watch.stop();
    expect(await analyzeNewDeliveryTables(database)).toEqual({ analyzed: [], done: true });
    expect(done.errors).toEqual([]);
  });

  it('reports a failed look and looks again after the interval', async () => {
    const closed = await openTestDatabase();
    await closed.close();
    const { scheduled, errors, rescheduled, watch } = watchOnce(closed);
    await rescheduled;
    expect(errors).toHaveLength(1);
    expect(scheduled).toEqual([{ ms: 250, cancelled: false }]);
    await watch.stop();
  });

  it('is what a worker on PostgreSQL does from its start', async () => {
    const fresh = await openTestDatabase();
    try {
      await fresh.query('ALTER TABLE outbox_events SET (autovacuum_enabled = false)');
      await insertEvents(fresh, 0, 1_000);
      const worker = createDeliveryWorker({ database: fresh });
      worker.start();
      // Closing waits for the watch's look under way, the first of which starts with the worker.
      await worker.close();
      expect(await readDeliveryTableStatistics(fresh)).toContainEqual({
        table: 'outbox_events',
        analyzed: true,
        changed: 0,
      });
    } finally {
      await fresh.close();
    }
  });
});

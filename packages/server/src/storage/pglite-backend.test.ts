import { readFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDriver } from '../../test/support/database.js';
import { PGLITE_TEMPLATE_ENV } from '../../test/support/pglite-template.js';
import { RECORD_ATTEMPT_BATCH } from '../stores/attempt-record-store.js';
import { CLAIM_DUE_DELIVERIES, claimParameters } from '../stores/delivery-claim-store.js';
import { INSERT_DELIVERIES_OF_EVENTS } from '../stores/fan-out-store.js';
import { bookkeepingWrite } from './bookkeeping-writes.js';
import { PGliteDatabase } from './pglite-backend.js';
import { replannedAsTablesGrow } from './statement-cache.js';

// Group commit on the embedded database (docs/decisions.md, "Durable commits on the embedded
// database"): a write's answer waits for the WAL flush that follows it, and so does anything
// that ends while a write waits for one, but a read with no write waiting sends no flush and
// waits for none. Counted with the driver's flush hook, in memory (the flush statement is the
// same; only a data directory makes it reach a disk).
describe.runIf(testDriver === 'pglite')('PGliteDatabase with group commit', () => {
  let pglite: PGlite;
  let database: PGliteDatabase;
  const flushes = { count: 0 };

  beforeAll(async () => {
    const template = process.env[PGLITE_TEMPLATE_ENV];
    pglite = template
      ? new PGlite({ loadDataDir: new Blob([await readFile(template)]) })
      : new PGlite();
    await pglite.waitReady;
    database = new PGliteDatabase({
      pglite,
      onClose: () => pglite.close(),
      maxQueued: 16,
      groupCommit: true,
      onWalFlush: () => {
        flushes.count++;
      },
    });
    await database.query('CREATE TABLE group_commit_t (id integer PRIMARY KEY, label text)');
  });

  afterAll(async () => {
    await database.close();
  });

  const read = () =>
    database.query<{ label: string }>('SELECT label FROM group_commit_t WHERE id = $1', [1]);

  it('answers a write after a flush, and a read that follows it with none', async () => {
    const before = flushes.count;
    await database.query('INSERT INTO group_commit_t (id, label) VALUES ($1, $2)', [1, 'one']);
    expect(flushes.count).toBe(before + 1);
    expect((await read()).rows).toEqual([{ label: 'one' }]);
    await database.transaction(async (transaction) => {
      await transaction.query('SELECT label FROM group_commit_t WHERE id = $1', [1]);
    });
    expect(flushes.count).toBe(before + 1);
  });

  it('makes a read that ends while a write waits for its flush wait for that flush too', async () => {
    await read();
    const before = flushes.count;
    let flushesWhenRead: number | undefined;
    const write = database.query('UPDATE group_commit_t SET label = $1 WHERE id = $2', ['two', 1]);
    const reading = read().then((result) => {
      flushesWhenRead = flushes.count;
      return result;
    });
    await Promise.all([write, reading]);
    // One flush for both: the read saw a commit that was not on disk yet.
    expect(flushesWhenRead).toBe(before + 1);
    expect((await reading).rows).toEqual([{ label: 'two' }]);
  });

  it('flushes after a transaction that wrote, and after none that only read or failed', async () => {
    await read();
    const before = flushes.count;
    await database.transaction(async (transaction) => {
      await transaction.query('INSERT INTO group_commit_t (id, label) VALUES ($1, $2)', [2, 'x']);
    });
    expect(flushes.count).toBe(before + 1);
    await expect(
      database.query('INSERT INTO group_commit_t (id, label) VALUES ($1, $2)', [2, 'again']),
    ).rejects.toMatchObject({ code: '23505' });
    await expect(
      database.transaction(async (transaction) => {
        await transaction.query('INSERT INTO group_commit_t (id, label) VALUES ($1, $2)', [3, 'y']);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(flushes.count).toBe(before + 1);
    expect(
      (await database.query('SELECT count(*)::integer AS n FROM group_commit_t')).rows,
    ).toEqual([{ n: 2 }]);
  });

  it("answers a bookkeeping write at once, and flushes it before the next query's answer", async () => {
    const bookkeeping = bookkeepingWrite(
      'INSERT INTO group_commit_t (id, label) VALUES ($1, $2) RETURNING id',
    );
    await read();
    const before = flushes.count;
    expect((await database.query(bookkeeping, [30, 'kept'])).rows).toEqual([{ id: 30 }]);
    expect((await database.query(bookkeeping, [31, 'kept'])).rows).toEqual([{ id: 31 }]);
    expect(flushes.count).toBe(before);
    // A read, which may have seen them, waits for one flush that covers both.
    expect((await read()).rows).toEqual([{ label: 'two' }]);
    expect(flushes.count).toBe(before + 1);
    await read();
    expect(flushes.count).toBe(before + 1);
    // A failure is answered at once too.
    await expect(database.query(bookkeeping, [30, 'again'])).rejects.toMatchObject({
      code: '23505',
    });
    expect(flushes.count).toBe(before + 1);
  });

  it('answers a write run with its generic plan with its own rows, after a flush', async () => {
    const marked = replannedAsTablesGrow(
      'INSERT INTO group_commit_t (id, label) VALUES ($1, $2) RETURNING id, label',
    );
    await read();
    const before = flushes.count;
    // Between the statements that switch the plan cache's mode, whose answers are not its own.
    for (const id of [20, 21]) {
      const { rows, rowCount } = await database.query(marked, [id, 'generic']);
      expect({ rows, rowCount }).toEqual({ rows: [{ id, label: 'generic' }], rowCount: 1 });
    }
    expect(flushes.count).toBe(before + 2);
    await expect(database.query(marked, [20, 'again'])).rejects.toMatchObject({ code: '23505' });
    expect(flushes.count).toBe(before + 2);
  });
});

// PGlite never analyzes, so a prepared plan is never replaced by the engine: the driver prepares
// the statements whose best plan changes as their tables grow (the delivery worker's claim,
// fan-out and attempt batch) again, under a new name, once their plan is a second old by its
// clock, and closes the old one; in between they run with that one generic plan, which
// PostgreSQL left to choose would make anew on every run (docs/decisions.md, "Delivery's cost
// does not grow with its backlog").
describe.runIf(testDriver === 'pglite')('PGliteDatabase preparing plans again', () => {
  let database: PGliteDatabase;
  let now = 50_000;

  beforeAll(async () => {
    const template = process.env[PGLITE_TEMPLATE_ENV];
    if (template === undefined) throw new Error(`${PGLITE_TEMPLATE_ENV} is not set`);
    const pglite = new PGlite({ loadDataDir: new Blob([await readFile(template)]) });
    await pglite.waitReady;
    database = new PGliteDatabase({
      pglite,
      onClose: () => pglite.close(),
      maxQueued: 16,
      groupCommit: false,
      now: () => now,
    });
  });

  afterAll(async () => {
    await database.close();
  });

  /** The names under which `sql` is prepared now. */
  async function namesOf(sql: string): Promise<string[]> {
    const { rows } = await database.query<{ name: string }>(
      'SELECT name FROM pg_prepared_statements WHERE statement = $1 ORDER BY name',
      [sql],
    );
    return rows.map((row) => row.name);
  }

  const runs = {
    claim: () =>
      database.query(
        CLAIM_DUE_DELIVERIES,
        claimParameters({
          now: Date.parse('2026-03-01T09:00:00.000Z'),
          leaseMs: 20_000,
          limit: 32,
          endpointConcurrency: 4,
          busyEndpoints: [],
          busyCounts: [],
        }),
      ),
    'attempt batch': () =>
      database.query(
        RECORD_ATTEMPT_BATCH,
        Array.from({ length: 14 }, () => []),
      ),
    'fan-out insert': () =>
      database.query(INSERT_DELIVERIES_OF_EVENTS, [[], [], [], '2026-03-01T09:00:00.000Z', []]),
  };
  const texts: Record<string, string> = {
    claim: CLAIM_DUE_DELIVERIES,
    'attempt batch': RECORD_ATTEMPT_BATCH,
    'fan-out insert': INSERT_DELIVERIES_OF_EVENTS,
  };

  it('runs them with one generic plan, never one planned for their values', async () => {
    for (const run of Object.values(runs)) for (let runs = 0; runs < 8; runs++) await run();
    const { rows } = await database.query<{ statement: string; generic: number; custom: number }>(
      `SELECT statement, generic_plans::integer AS generic, custom_plans::integer AS custom
         FROM pg_prepared_statements WHERE statement = ANY ($1::text[])`,
      [Object.values(texts)],
    );
    // Left to choose, PostgreSQL plans the attempt batch and the fan-out insert for their
    // values on every run, and anything for its values on the first five.
    expect(rows.map(({ statement, generic, custom }) => ({ statement, generic, custom }))).toEqual(
      expect.arrayContaining(
        Object.values(texts).map((statement) => ({ statement, generic: 8, custom: 0 })),
      ),
    );
    expect(rows).toHaveLength(3);
  });

  it('lets every other statement choose its plan, in the same transaction too', async () => {
    const mode = 'SELECT current_setting($1) AS mode';
    await runs['attempt batch']();
    expect((await database.query(mode, ['plan_cache_mode'])).rows).toEqual([{ mode: 'auto' }]);
    await database.transaction(async (transaction) => {
      await transaction.query(
        RECORD_ATTEMPT_BATCH,
        Array.from({ length: 14 }, () => []),
      );
      expect((await transaction.query(mode, ['plan_cache_mode'])).rows).toEqual([{ mode: 'auto' }]);
    });
  });

  for (const [statement, run] of Object.entries(runs)) {
    it(`prepares the ${statement} again once its plan is a second old`, async () => {
      const sql = texts[statement] as string;
      await run();
      const [first] = await namesOf(sql);
      expect(first).toBeDefined();
      for (let runs = 0; runs < 7; runs++) await run();
      now += 999;
      await run();
      expect(await namesOf(sql)).toEqual([first]);
      now += 1;
      await run();
      const [second] = await namesOf(sql);
      expect(second).toBeDefined();
      expect(second).not.toBe(first);
      // The old name is closed: one plan of the text is kept, never one per second.
      expect(await namesOf(sql)).toEqual([second]);
    });
  }
});

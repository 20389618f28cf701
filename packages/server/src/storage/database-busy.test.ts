import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { testDatabaseUrl, testDriver, uniqueSchemaName } from '../../test/support/database.js';
import { buildServer } from '../build-server.js';
import { FollowUpServerError } from '../errors.js';
import type { Database } from './database.js';
import { databaseBusyError, MAX_QUEUED_QUERIES } from './database-busy.js';
import { openPGliteDatabase } from './pglite-database.js';
import { openPostgresDatabase } from './postgres-database.js';

// A database that lets two queries wait beside the one running (on PostgreSQL, one connection).
async function openSmallDatabase(): Promise<{ database: Database; close: () => Promise<void> }> {
  if (testDriver === 'pglite') {
    const database = await openPGliteDatabase({ maxQueuedQueries: 2 });
    return { database, close: () => database.close() };
  }
  const schema = uniqueSchemaName();
  const database = await openPostgresDatabase({
    connectionString: testDatabaseUrl(),
    schema,
    maxConnections: 1,
    maxQueuedQueries: 2,
  });
  return {
    database,
    close: async () => {
      await database.query(`DROP SCHEMA ${schema} CASCADE`);
      await database.close();
    },
  };
}

/** A database that refuses every query and transaction with `database_busy`. */
function saturatedDatabase(): Database {
  const refuse = async () => {
    throw databaseBusyError();
  };
  return { driver: testDriver, query: refuse, transaction: refuse, close: async () => {} };
}

/** The open inbox (no secret configured) stores a message: its first query is refused. */
function postToInbox(app: FastifyInstance) {
  return app.inject({
    method: 'POST',
    url: '/api/inbox/webhook',
    payload: { from: 'ada@example.com', subject: 'Hello' },
  });
}

describe('a saturated database', () => {
  it('lets 256 queries wait by default', () => {
    expect(MAX_QUEUED_QUERIES).toBe(256);
  });

  it('refuses a query at once with database_busy when too many wait, and serves those waiting', async () => {
    const { database, close } = await openSmallDatabase();
    try {
      let release: () => void = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let began: () => void = () => {};
      const running = new Promise<void>((resolve) => {
        began = resolve;
      });
      const holding = database.transaction(async (transaction) => {
        await transaction.query('SELECT 1');
        began();
        await gate;
      });
      await running;
      const waiting = [database.query('SELECT 2 AS n'), database.query('SELECT 3 AS n')];
      // On PostgreSQL the pool counts a query as waiting once it asked for a connection.
      await new Promise((resolve) => setImmediate(resolve));
      const refused = await database.query('SELECT 4').catch((error: unknown) => error);
      expect(FollowUpServerError.isInstance(refused)).toBe(true);
      expect((refused as FollowUpServerError).code).toBe('database_busy');
      await expect(database.transaction(async () => {})).rejects.toMatchObject({
        code: 'database_busy',
      });
      release();
      await holding;
      const answers = await Promise.all(waiting);
      expect(answers.map((answer) => answer.rows[0])).toEqual([{ n: 2 }, { n: 3 }]);
      // Room again.
      expect((await database.query('SELECT 5 AS n')).rows).toEqual([{ n: 5 }]);
    } finally {
      await close();
    }
  });

  it('answers a request refused for it 503 unavailable with Retry-After, as problem+json', async () => {
    const app = buildServer({ database: saturatedDatabase(), logger: false });
    try {
      const response = await postToInbox(app);
      expect(response.statusCode).toBe(503);
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(response.headers['retry-after']).toBe('1');
      expect(response.json()).toMatchObject({ code: 'unavailable', status: 503 });
      expect(response.headers['x-request-id']).toBe(response.json().requestId);
    } finally {
      await app.close();
    }
  });

  it('logs the requests it sheds once, then as a count at most every 10 s, not one by one', async () => {
    let now = Date.parse('2026-03-01T09:00:00.000Z');
    const lines: Record<string, unknown>[] = [];
    const app = buildServer({
      database: saturatedDatabase(),
      clock: { now: () => now },
      logger: { level: 'info', stream: { write: (line) => void lines.push(JSON.parse(line)) } },
    });
    const shed = () => postToInbox(app);
    const shedLines = () =>
      lines.filter((line) => line.msg === 'requests shed: too many wait for the database');
    try {
      for (let index = 0; index < 5; index++) expect((await shed()).statusCode).toBe(503);
      expect(shedLines()).toEqual([
        expect.objectContaining({
          msg: 'requests shed: too many wait for the database',
          code: 'unavailable',
          shedSinceLastLine: 0,
        }),
      ]);
      // Each still has its request line, with its code.
      const requestLines = lines.filter((line) => line.msg === 'request completed');
      expect(requestLines).toHaveLength(5);
      expect(requestLines.every((line) => line.code === 'unavailable')).toBe(true);

      now += 9_999;
      await shed();
      expect(shedLines()).toHaveLength(1);
      now += 1;
      await shed();
      expect(shedLines()).toEqual([
        expect.objectContaining({ shedSinceLastLine: 0 }),
        expect.objectContaining({ shedSinceLastLine: 5 }),
      ]);
    } finally {
      await app.close();
    }
  });
});

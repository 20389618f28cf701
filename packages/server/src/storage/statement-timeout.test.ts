import { describe, expect, it } from 'vitest';
import { testDatabaseUrl, testDriver, uniqueSchemaName } from '../../test/support/database.js';
import { buildServer } from '../build-server.js';
import { migrate } from './migrate.js';
import { DEFAULT_STATEMENT_TIMEOUT_MS, openPostgresDatabase } from './postgres-database.js';

// PGlite runs in the server's own thread and has no statement_timeout of its own: PostgreSQL only.
describe.skipIf(testDriver !== 'postgres')('statement timeout on PostgreSQL', () => {
  it(`is ${DEFAULT_STATEMENT_TIMEOUT_MS / 1000} s by default, and a cancelled query answers 503 query_timeout`, async () => {
    const schema = uniqueSchemaName();
    const standard = await openPostgresDatabase({ connectionString: testDatabaseUrl(), schema });
    try {
      const { rows } = await standard.query<{ statement_timeout: string }>(
        'SHOW statement_timeout',
      );
      expect(rows[0]?.statement_timeout).toBe('30s');
    } finally {
      await standard.close();
    }

    const database = await openPostgresDatabase({
      connectionString: testDatabaseUrl(),
      schema,
      statementTimeoutMs: 200,
    });
    const app = buildServer({ database, logger: false });
    app.get('/test/slow', async () => {
      await database.query('SELECT pg_sleep(5)');
      return { done: true };
    });
    try {
      await migrate(database); // migrations run without the timeout
      const response = await app.inject({ method: 'GET', url: '/test/slow' });
      expect(response.statusCode).toBe(503);
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(response.headers['retry-after']).toBe('1');
      expect(response.json()).toMatchObject({ code: 'query_timeout', status: 503 });
      // The connection is still good for the next request.
      expect((await database.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await app.close();
      // Dropping the migrated schema can take longer than the 200 ms under test on a busy machine.
      await database.transaction(async (transaction) => {
        await transaction.query('SET LOCAL statement_timeout = 0');
        await transaction.query(`DROP SCHEMA ${schema} CASCADE`);
      });
      await database.close();
    }
  });
});

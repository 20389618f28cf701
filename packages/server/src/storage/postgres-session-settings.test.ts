import { describe, expect, it } from 'vitest';
import { testDatabaseUrl, testDriver, uniqueSchemaName } from '../../test/support/database.js';
import { openPostgresDatabase } from './postgres-database.js';

// What every connection of the server's pool is set to on PostgreSQL (PGlite runs none of it:
// its timestamps are read the same way, and it has no JIT compiler).
describe.skipIf(testDriver !== 'postgres')('the session settings of PostgreSQL connections', () => {
  it('read timestamps in UTC and ISO form, and never compile a query with JIT', async () => {
    const schema = uniqueSchemaName();
    const database = await openPostgresDatabase({ connectionString: testDatabaseUrl(), schema });
    try {
      const { rows } = await database.query<{ setting: string; name: string }>(
        "SELECT name, setting FROM pg_settings WHERE name IN ('jit', 'TimeZone', 'DateStyle')",
      );
      expect(Object.fromEntries(rows.map(({ name, setting }) => [name, setting]))).toEqual({
        DateStyle: expect.stringMatching(/^ISO,/),
        jit: 'off',
        TimeZone: 'UTC',
      });
    } finally {
      await database.query(`DROP SCHEMA ${schema} CASCADE`);
      await database.close();
    }
  });
});

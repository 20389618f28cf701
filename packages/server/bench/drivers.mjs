// The storage drivers a benchmark runs on: embedded PGlite always, and PostgreSQL when
// FOLLOWUP_TEST_DATABASE_URL or DATABASE_URL is set, in a schema of its own dropped afterwards.
import { randomBytes } from 'node:crypto';
import { openPGliteDatabase, openPostgresDatabase } from '../dist/index.js';

export function openDrivers() {
  const drivers = [{ name: 'pglite', open: () => openPGliteDatabase() }];
  const url = process.env.FOLLOWUP_TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (url) {
    const schema = `bench_${randomBytes(4).toString('hex')}`;
    drivers.push({
      name: 'postgres',
      open: () => openPostgresDatabase({ connectionString: url, schema }),
      cleanup: (database) => database.query(`DROP SCHEMA ${schema} CASCADE`),
    });
  }
  return drivers;
}

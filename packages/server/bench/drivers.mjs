// The storage drivers a benchmark runs on: embedded PGlite always, and PostgreSQL when
// FOLLOWUP_TEST_DATABASE_URL or DATABASE_URL is set, in a schema of its own dropped afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
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

/**
 * A PostgreSQL database of its own for one benchmark, on the cluster `url` reaches: its `name`
 * (`prefix` and 8 random hex digits), its `url`, `create()` and `drop()` (which ends its
 * connections), each through a short connection to `url`'s database.
 */
export function scratchPostgresDatabase(url, prefix) {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const databaseUrl = new URL(url);
  databaseUrl.pathname = `/${name}`;
  const admin = async (sql) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  return {
    name,
    url: databaseUrl.href,
    create: () => admin(`CREATE DATABASE ${name}`),
    drop: () => admin(`DROP DATABASE ${name} WITH (FORCE)`),
  };
}

import { describe, expect, it } from 'vitest';
import {
  testDatabaseUrl,
  testDriver,
  uniqueSchemaName,
  useTestDatabase,
} from '../../test/support/database.js';
import { FollowUpServerError } from '../errors.js';
import { applyMigrations, migrate } from './migrate.js';
import { migrations } from './migrations/index.js';
import { openPostgresDatabase } from './postgres-database.js';

const latest = migrations.at(-1)?.version ?? 0;
const allVersions = migrations.map((migration) => migration.version);

const tables = [
  'audit_entries',
  'campaigns',
  'change_feed_horizons',
  'contact_tombstones',
  'contacts',
  'deals',
  'deliveries',
  'delivery_attempts',
  'ehr_delivery_digests',
  'ehr_receipts',
  'idempotency_keys',
  'messages',
  'outbox_events',
  'schema_migrations',
  'sequences',
  'service_accounts',
  'sessions',
  'sign_in_failures',
  'sign_in_links',
  'tokens',
  'users',
  'web_flashes',
  'webhook_endpoints',
];

describe('migrate', () => {
  const database = useTestDatabase();

  it('creates every table and records each version once', async () => {
    const { rows } = await database().query<{ name: string }>(
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1`,
    );
    expect(rows.map((row) => row.name)).toEqual(tables);
    const versions = await database().query<{ version: number; name: string }>(
      'SELECT version, name FROM schema_migrations ORDER BY version',
    );
    expect(versions.rows).toEqual(migrations.map(({ version, name }) => ({ version, name })));
  });

  it('applies nothing the second time', async () => {
    expect(await migrate(database())).toEqual({ applied: [], version: latest });
  });

  it('applies only the migrations not yet recorded, in order', async () => {
    const extra = [
      ...migrations,
      { version: 1001, name: 'third', sql: 'ALTER TABLE notes ADD COLUMN body text' },
      { version: 1000, name: 'second', sql: 'CREATE TABLE notes (id text PRIMARY KEY)' },
    ];
    try {
      expect(await applyMigrations(database(), extra)).toEqual({
        applied: [1000, 1001],
        version: 1001,
      });
      const { rows } = await database().query<{ column: string }>(
        `SELECT column_name AS column FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name = 'notes' ORDER BY 1`,
      );
      expect(rows.map((row) => row.column)).toEqual(['body', 'id']);
    } finally {
      await database().query('DROP TABLE IF EXISTS notes');
      await database().query('DELETE FROM schema_migrations WHERE version >= 1000');
    }
  });

  it('applies nothing of a migration set that fails part way', async () => {
    const broken = [
      ...migrations,
      { version: 1000, name: 'good', sql: 'CREATE TABLE notes (id text PRIMARY KEY)' },
      { version: 1001, name: 'bad', sql: 'ALTER TABLE no_such_table ADD COLUMN x text' },
    ];
    await expect(applyMigrations(database(), broken)).rejects.toThrow(/no_such_table/);
    const { rows } = await database().query(
      "SELECT 1 FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'notes'",
    );
    expect(rows).toEqual([]);
    expect(await migrate(database())).toEqual({ applied: [], version: latest });
  });

  it('refuses a database migrated by a newer release', async () => {
    await database().query("INSERT INTO schema_migrations (version, name) VALUES (9999, 'future')");
    try {
      const error = await migrate(database()).catch((caught: unknown) => caught);
      expect(FollowUpServerError.isInstance(error)).toBe(true);
      expect((error as FollowUpServerError).code).toBe('schema_too_new');
    } finally {
      await database().query('DELETE FROM schema_migrations WHERE version = 9999');
    }
  });

  it.runIf(testDriver === 'postgres')(
    'lets several instances migrate one PostgreSQL database at once',
    async () => {
      const schema = uniqueSchemaName();
      const instances = await Promise.all(
        [1, 2, 3].map(() =>
          openPostgresDatabase({ connectionString: testDatabaseUrl(), schema, maxConnections: 2 }),
        ),
      );
      try {
        const results = await Promise.all(instances.map((instance) => migrate(instance)));
        expect(results.map((result) => result.applied.join(',')).sort()).toEqual([
          '',
          '',
          allVersions.join(','),
        ]);
        const [first] = instances;
        const { rows } =
          (await first?.query('SELECT version FROM schema_migrations ORDER BY version')) ?? {};
        expect(rows).toEqual(allVersions.map((version) => ({ version })));
      } finally {
        await instances[0]?.query(`DROP SCHEMA ${schema} CASCADE`);
        await Promise.all(instances.map((instance) => instance.close()));
      }
    },
  );
});

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
import { openPGliteDatabase } from './pglite-database.js';
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
  'outbox_trace_contexts',
  'portal_links',
  'portal_sessions',
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
  'webhook_replays',
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

  it('refuses migration 26 while users have addresses that differ only in case, naming them, and applies it once mended', async () => {
    // A database as the release before migration 26 left it, on the driver under test.
    const schema = uniqueSchemaName();
    const older =
      testDriver === 'postgres'
        ? await openPostgresDatabase({ connectionString: testDatabaseUrl(), schema })
        : await openPGliteDatabase();
    try {
      await applyMigrations(
        older,
        migrations.filter((migration) => migration.version < 26),
      );
      const created = new Date('2026-03-01T09:00:00Z');
      for (const [id, email] of [
        ['usr_1', 'demo@example.com'],
        ['usr_2', 'DEMO@example.com'],
        ['usr_3', 'grace@example.com'],
        ['usr_4', 'Grace@Example.com'],
        ['usr_5', 'ada@example.com'],
      ]) {
        await older.query(
          `INSERT INTO users (id, email, name, role, created_at) VALUES ($1, $2, 'A', 'AGENT', $3)`,
          [id, email, created],
        );
      }

      const error = await migrate(older).catch((caught: unknown) => caught);
      expect(FollowUpServerError.isInstance(error)).toBe(true);
      expect((error as FollowUpServerError).code).toBe('migration_refused');
      expect((error as Error).message).toBe(
        'Migration 26 (user-email-case) cannot run: E-mail addresses of users are now unique ' +
          'whatever their case, and some users have addresses that differ only in case: ' +
          'DEMO@example.com (usr_2), demo@example.com (usr_1); ' +
          'Grace@Example.com (usr_4), grace@example.com (usr_3). Give all but one user of each ' +
          'group another address, or delete them (PATCH or DELETE /api/users/{id} on the ' +
          'release running now), then start this release again.',
      );
      const versions = await older.query<{ version: number }>(
        'SELECT max(version) AS version FROM schema_migrations',
      );
      expect(versions.rows).toEqual([{ version: 25 }]);

      await older.query(`DELETE FROM users WHERE id IN ('usr_2', 'usr_4')`);
      expect(await migrate(older)).toEqual({
        applied: allVersions.filter((version) => version >= 26),
        version: latest,
      });
      // From now on the database itself keeps one user per address, whatever its case.
      const variant = await older
        .query(
          `INSERT INTO users (id, email, name, role, created_at) VALUES ('usr_6', 'ADA@example.com', 'A', 'AGENT', $1)`,
          [created],
        )
        .catch((caught: unknown) => caught);
      expect(variant).toMatchObject({ code: '23505', constraint: 'users_lower_email_key' });
    } finally {
      if (testDriver === 'postgres') await older.query(`DROP SCHEMA ${schema} CASCADE`);
      await older.close();
    }
  });

  it('gives the events pending at migration 27 the endpoints that take them, and tunes autovacuum on PostgreSQL only', async () => {
    // A database as the release before migration 27 left it, on the driver under test.
    const schema = uniqueSchemaName();
    const older =
      testDriver === 'postgres'
        ? await openPostgresDatabase({ connectionString: testDatabaseUrl(), schema })
        : await openPGliteDatabase();
    try {
      await applyMigrations(
        older,
        migrations.filter((migration) => migration.version < 27),
      );
      const at = new Date('2026-03-01T09:00:00Z');
      await older.query(
        `INSERT INTO webhook_endpoints (id, url, events, state, secret, created_at, updated_at)
         VALUES ('wep_all', 'https://all.example.com/', '{*}', 'active', 'whsec_a', $1, $1),
                ('wep_deals', 'https://deals.example.com/', '{deal.updated}', 'active', 'whsec_b', $1, $1),
                ('wep_off', 'https://off.example.com/', '{*}', 'disabled', 'whsec_c', $1, $1)`,
        [at],
      );
      await older.query(
        `INSERT INTO outbox_events (id, event, data, created_at, dispatched_at)
         VALUES ('evt_contact', 'contact.created', '{}', $1, NULL),
                ('evt_deal', 'deal.updated', '{}', $1, NULL),
                ('evt_done', 'deal.updated', '{}', $1, $1)`,
        [at],
      );
      await migrate(older);
      const { rows } = await older.query<{ id: string; fan_out_to: string[] | null }>(
        'SELECT id, fan_out_to FROM outbox_events ORDER BY id',
      );
      expect(rows).toEqual([
        { id: 'evt_contact', fan_out_to: ['wep_all'] },
        { id: 'evt_deal', fan_out_to: ['wep_all', 'wep_deals'] },
        { id: 'evt_done', fan_out_to: null },
      ]);
      const settings = await older.query<{ name: string; options: string[] | null }>(
        `SELECT relname AS name, reloptions AS options FROM pg_class
          WHERE relname IN ('deliveries', 'outbox_events')
            AND relnamespace = current_schema()::regnamespace ORDER BY relname`,
      );
      const tuned =
        testDriver === 'postgres'
          ? expect.arrayContaining(['autovacuum_vacuum_scale_factor=0.01'])
          : null;
      expect(settings.rows).toEqual([
        { name: 'deliveries', options: tuned },
        { name: 'outbox_events', options: tuned },
      ]);
    } finally {
      if (testDriver === 'postgres') await older.query(`DROP SCHEMA ${schema} CASCADE`);
      await older.close();
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

import { FollowUpServerError } from '../errors.js';
import type { Database } from './database.js';
import { migrations as allMigrations, type Migration } from './migrations/index.js';

// Any fixed 64-bit number will do; every instance must use the same one.
const migrationLockKey = '7312045781';

/** What {@link migrate} did. */
export interface MigrateResult {
  /** Versions applied by this call, ascending; empty when the schema was up to date. */
  applied: number[];
  /** The schema version after the call. */
  version: number;
}

/**
 * Brings the database's schema up to date: applies, in one transaction, every migration not yet
 * recorded in `schema_migrations`. Several instances may start at once on one PostgreSQL
 * database: they take a transaction-scoped advisory lock, so one applies and the others find the
 * work done. A database whose schema is newer than this server refuses it
 * (`schema_too_new`) rather than run on tables it does not know. A migration that cannot run on
 * the data there (users whose e-mail addresses differ only in case, for migration 26) applies
 * nothing and throws `migration_refused`, whose message names the rows to mend.
 *
 * @example
 * ```ts
 * const { applied } = await migrate(database);
 * ```
 */
export function migrate(database: Database): Promise<MigrateResult> {
  return applyMigrations(database, allMigrations);
}

/** @internal {@link migrate} with a given list of migrations (tests add their own). */
export async function applyMigrations(
  database: Database,
  list: readonly Migration[],
): Promise<MigrateResult> {
  const migrations = [...list].sort((a, b) => a.version - b.version);
  return database.transaction(async (transaction) => {
    // Waiting for another instance's migrations, or running a long one, is not a slow query.
    await transaction.query('SET LOCAL statement_timeout = 0');
    await transaction.query('SELECT pg_advisory_xact_lock($1::bigint)', [migrationLockKey]);
    await transaction.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version integer PRIMARY KEY,
         name text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const { rows } = await transaction.query<{ version: number }>(
      'SELECT version FROM schema_migrations ORDER BY version',
    );
    const done = new Set(rows.map((row) => row.version));
    const known = new Set(migrations.map((migration) => migration.version));
    const unknown = rows.find((row) => !known.has(row.version));
    if (unknown !== undefined) {
      throw new FollowUpServerError({
        code: 'schema_too_new',
        message:
          `The database has schema version ${unknown.version}, which this server does not know: ` +
          'it was migrated by a newer release. Upgrade this server.',
      });
    }
    const applied: number[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      const refusal = await migration.refusal?.(transaction);
      if (refusal !== undefined) {
        throw new FollowUpServerError({
          code: 'migration_refused',
          message: `Migration ${migration.version} (${migration.name}) cannot run: ${refusal}`,
        });
      }
      await transaction.query(migration.sql);
      if (migration.postgresSql !== undefined && database.driver === 'postgres') {
        await transaction.query(migration.postgresSql);
      }
      await transaction.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
    }
    const version = migrations.at(-1)?.version ?? 0;
    return { applied, version };
  });
}

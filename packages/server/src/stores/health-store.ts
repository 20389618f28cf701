import type { Queryable } from '../storage/database.js';

/**
 * @internal Asks the database the smallest question there is; rejects when it does not answer
 * (`GET /healthz` and `GET /readyz` then say the server is unavailable).
 */
export async function pingDatabase(database: Queryable): Promise<void> {
  await database.query('SELECT 1');
}

/**
 * @internal The newest migration recorded in `schema_migrations`, 0 when none is: what
 * `GET /readyz` compares with the version this server's code was written for.
 */
export async function appliedSchemaVersion(database: Queryable): Promise<number> {
  const { rows } = await database.query<{ version: number | null }>(
    'SELECT max(version) AS version FROM schema_migrations',
  );
  return rows[0]?.version ?? 0;
}

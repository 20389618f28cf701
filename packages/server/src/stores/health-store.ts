import type { Queryable } from '../storage/database.js';

/**
 * @internal Asks the database the smallest question there is; rejects when it does not answer
 * (`GET /healthz` then says the server is unavailable).
 */
export async function pingDatabase(database: Queryable): Promise<void> {
  await database.query('SELECT 1');
}

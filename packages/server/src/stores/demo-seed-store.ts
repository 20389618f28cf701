import type { Queryable } from '../storage/database.js';

/**
 * @internal Whether the database holds any contact: `start --demo` seeds its demo contacts and
 * deals only into a database without one, so a restart adds no more.
 */
export async function holdsAnyContact(database: Queryable): Promise<boolean> {
  const { rows } = await database.query<{ any: boolean }>(
    'SELECT EXISTS (SELECT 1 FROM contacts) AS any',
  );
  return rows[0]?.any === true;
}

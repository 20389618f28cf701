import type { Queryable } from '../../src/storage/database.js';

/**
 * Records two attempts of the test database's one delivery, as the worker would have: a 503
 * that answered "busy, try later" after 41 ms at 09:00, then a timeout after 15 s at 09:01 on
 * 2026-03-01. Resolves with the delivery's id.
 */
export async function recordTwoAttempts(database: Queryable): Promise<string> {
  const { rows } = await database.query<{ id: string }>('SELECT id FROM deliveries');
  const id = rows[0]?.id as string;
  await database.query(
    `INSERT INTO delivery_attempts
       (delivery_id, started_at, duration_ms, status, error, response_excerpt)
     VALUES ($1, $2, 41, 503, NULL, $3), ($1, $4, 15000, NULL, 'timeout', NULL)`,
    [
      id,
      new Date('2026-03-01T09:00:00Z'),
      Buffer.from('busy, try later'),
      new Date('2026-03-01T09:01:00Z'),
    ],
  );
  return id;
}

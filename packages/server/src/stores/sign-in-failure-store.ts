import type { Queryable } from '../storage/database.js';

/** @internal A sign-in throttle key's window, as `sign_in_failures` holds it. */
export interface SignInFailureWindow {
  key: string;
  failures: number;
  window_started_at: string;
}

/** @internal The windows of these keys that started after `windowStart`. */
export async function listOpenFailureWindows(
  queryable: Queryable,
  options: { keys: readonly string[]; windowStart: Date },
): Promise<SignInFailureWindow[]> {
  const { rows } = await queryable.query<SignInFailureWindow>(
    `SELECT key, failures, window_started_at FROM sign_in_failures
        WHERE key = ANY($1::text[]) AND window_started_at > $2`,
    [options.keys, options.windowStart],
  );
  return rows;
}

/**
 * @internal Counts one failure under a key, in one statement that counts only while the key is
 * under `limit` in its window (a window that started at or before `windowStart` starts again at
 * `now`). Answers whether it counted: `false` when the key is at its limit.
 */
export async function countSignInFailure(
  transaction: Queryable,
  options: { key: string; now: Date; windowStart: Date; limit: number },
): Promise<boolean> {
  // ON CONFLICT … DO UPDATE … WHERE takes the row's lock and judges its latest
  // version: two attempts cannot both take the last place.
  const { rows } = await transaction.query(
    `INSERT INTO sign_in_failures (key, failures, window_started_at) VALUES ($1, 1, $2)
               ON CONFLICT (key) DO UPDATE SET
                 failures = CASE WHEN sign_in_failures.window_started_at <= $3 THEN 1
                                 ELSE sign_in_failures.failures + 1 END,
                 reported = CASE WHEN sign_in_failures.window_started_at <= $3 THEN false
                                 ELSE sign_in_failures.reported END,
                 window_started_at = CASE WHEN sign_in_failures.window_started_at <= $3 THEN $2
                                          ELSE sign_in_failures.window_started_at END
               WHERE sign_in_failures.window_started_at <= $3
                  OR sign_in_failures.failures < $4
               RETURNING failures`,
    [options.key, options.now, options.windowStart, options.limit],
  );
  return rows.length > 0;
}

/**
 * @internal Marks a key reported when it has reached `limit` and was not reported yet in its
 * window; answers its failures then, or `undefined`.
 */
export async function markFailureBurstReported(
  queryable: Queryable,
  options: { key: string; limit: number },
): Promise<number | undefined> {
  const { rows } = await queryable.query<{ failures: number }>(
    `UPDATE sign_in_failures SET reported = true
            WHERE key = $1 AND failures >= $2 AND NOT reported
          RETURNING failures`,
    [options.key, options.limit],
  );
  return rows[0]?.failures;
}

/** @internal Forgets every failure of a key. */
export async function deleteSignInFailures(queryable: Queryable, key: string): Promise<void> {
  await queryable.query('DELETE FROM sign_in_failures WHERE key = $1', [key]);
}

/** @internal Gives a key back one counted failure (never below zero). */
export async function giveBackSignInFailure(queryable: Queryable, key: string): Promise<void> {
  await queryable.query(
    'UPDATE sign_in_failures SET failures = failures - 1 WHERE key = $1 AND failures > 0',
    [key],
  );
}

/** @internal Deletes the windows that started at or before `windowStart`; answers how many. */
export async function deleteEndedFailureWindows(
  queryable: Queryable,
  windowStart: Date,
): Promise<number> {
  const failures = await queryable.query(
    'DELETE FROM sign_in_failures WHERE window_started_at <= $1',
    [windowStart],
  );
  return failures.rowCount;
}

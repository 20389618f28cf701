import type { Queryable } from '../storage/database.js';
import { type EndpointRow, infoColumns } from './webhook-endpoint-store.js';

// The worker's record of an endpoint's health (delivery/endpoint-health.ts), in the transaction
// of the attempt. Each change of state is a statement that finds the row still to change under
// its lock, so that of two workers recording attempts of one endpoint at once, only one sees a
// streak start, end, or the endpoint disabled, and announces it: the other waits for the row,
// then finds it changed (PostgreSQL re-reads a row an `UPDATE` waited for).

/**
 * @internal Ends an endpoint's run of failures (after a delivered attempt). Answers the endpoint
 * as it is now with `failing_since` the start of the run it ended, or `undefined` when there was
 * none (or no endpoint has this id).
 */
export async function clearEndpointFailure(
  queryable: Queryable,
  id: string,
): Promise<EndpointRow | undefined> {
  // The locking read waits for a concurrent change of the row and reads it again, so the
  // failing_since answered is the one this statement clears.
  const { rows } = await queryable.query<EndpointRow>(
    `WITH failing AS (SELECT id, failing_since FROM webhook_endpoints
                       WHERE id = $1 AND failing_since IS NOT NULL FOR NO KEY UPDATE)
     UPDATE webhook_endpoints AS endpoint SET failing_since = NULL FROM failing
      WHERE endpoint.id = failing.id
     RETURNING ${columnsOf('endpoint', 'failing.failing_since')}`,
    [id],
  );
  return rows[0];
}

/**
 * @internal The endpoint with this id as it is after an attempt failed, its run of failures
 * started at `now` unless one is under way; `started` says whether this attempt started it.
 * `undefined` when the endpoint is gone.
 */
export async function recordEndpointFailure(
  queryable: Queryable,
  failure: { id: string; now: Date },
): Promise<{ endpoint: EndpointRow; started: boolean } | undefined> {
  const started = await queryable.query<EndpointRow>(
    `UPDATE webhook_endpoints SET failing_since = $2
      WHERE id = $1 AND failing_since IS NULL RETURNING ${infoColumns}`,
    [failure.id, failure.now],
  );
  if (started.rows[0]) return { endpoint: started.rows[0], started: true };
  // Under way: locked as the UPDATE above would have, for the decision to disable it.
  const { rows } = await queryable.query<EndpointRow>(
    `SELECT ${infoColumns} FROM webhook_endpoints WHERE id = $1 FOR NO KEY UPDATE`,
    [failure.id],
  );
  return rows[0] ? { endpoint: rows[0], started: false } : undefined;
}

/**
 * @internal Disables an active endpoint by the server's decision, saying why; answers it
 * disabled, or `undefined` when it was not active (already disabled meanwhile) or is gone.
 */
export async function disableEndpointFor(
  queryable: Queryable,
  change: { id: string; reason: 'gone' | 'failing'; now: Date },
): Promise<EndpointRow | undefined> {
  const { rows } = await queryable.query<EndpointRow>(
    `UPDATE webhook_endpoints SET state = 'disabled', disabled_reason = $2, updated_at = $3
      WHERE id = $1 AND state = 'active' RETURNING ${infoColumns}`,
    [change.id, change.reason, change.now],
  );
  return rows[0];
}

// `infoColumns` of the row `alias`, with `failing_since` taken from another expression.
function columnsOf(alias: string, failingSince: string): string {
  return infoColumns
    .split(', ')
    .map((column) =>
      column === 'failing_since' ? `${failingSince} AS failing_since` : `${alias}.${column}`,
    )
    .join(', ');
}

import type { Queryable } from '../storage/database.js';

/** @internal How an endpoint's attempts went over a period. */
export interface EndpointAttemptCounts {
  /** Attempts started in the period. */
  attempts: number;
  /** Of them, those the receiver answered with a 2xx status. */
  succeeded: number;
}

/**
 * @internal The attempts of an endpoint's deliveries started at or after `since`, and how many
 * of them succeeded (a 2xx answer, as the worker counts a success): the endpoint page's success
 * rate.
 */
export async function countEndpointAttempts(
  queryable: Queryable,
  read: { endpointId: string; since: Date },
): Promise<EndpointAttemptCounts> {
  const { rows } = await queryable.query<EndpointAttemptCounts>(
    `SELECT count(*)::int AS attempts,
            count(*) FILTER (WHERE a.status BETWEEN 200 AND 299)::int AS succeeded
       FROM deliveries AS d JOIN delivery_attempts AS a ON a.delivery_id = d.id
      WHERE d.endpoint_id = $1 AND a.started_at >= $2`,
    [read.endpointId, read.since],
  );
  return rows[0] ?? { attempts: 0, succeeded: 0 };
}

import { FollowUpServerError } from '../errors.js';

/**
 * The most queries that may wait for the database at once (PGlite's one backend, or a free
 * connection of the PostgreSQL pool): 256. Past it a query fails at once with
 * `database_busy`, which a request answers 503 `unavailable` with `Retry-After`, instead of
 * queueing without end while its client times out.
 */
export const MAX_QUEUED_QUERIES = 256;

/** @internal The error of a query refused because too many are waiting already. */
export function databaseBusyError(): FollowUpServerError {
  return new FollowUpServerError({
    code: 'database_busy',
    message: 'The database is saturated: too many queries are waiting for it.',
  });
}

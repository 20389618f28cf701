import type { APIError } from '../api-errors.js';
import type { ProblemCode } from '../wire/problem-codes.js';
import { RETRYABLE_STATUSES } from './backoff.js';
import type { BuiltRequest } from './build-request.js';
import { makeAPIError } from './make-api-error.js';
import { parseProblem } from './problem.js';
import { parseRetryAfter } from './retry-after.js';

const IDEMPOTENCY_IN_PROGRESS: ProblemCode = 'idempotency_in_progress';

/** A response whose status is not 2xx, as the client judges it. */
export interface ClassifiedFailure {
  /** The error the call fails with, by status and problem code. */
  readonly error: APIError;
  /** Whether sending the same request again may succeed. */
  readonly retryable: boolean;
  /** The server's `Retry-After`, in milliseconds, when it sent a readable one. */
  readonly retryAfterMs: number | undefined;
}

/**
 * Classifies a response that is not 2xx, its body already read as `text`: the error class of
 * its status and problem code, whether it is worth retrying (408, 429, 5xx but 501, and a 409
 * `idempotency_in_progress`: the first request with this key still runs, and the same request
 * with the same key will get its answer once it is done) and how long the server asks to wait.
 */
export function classifyResponse(
  response: Response,
  text: string,
  request: BuiltRequest,
  now: number,
): ClassifiedFailure {
  const status = response.status;
  const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), now);
  const error = makeAPIError({
    status,
    statusText: response.statusText,
    headers: response.headers,
    problem: parseProblem(text, response.headers.get('content-type')),
    method: request.method,
    url: request.url,
    retryAfterMs,
  });
  const retryable =
    RETRYABLE_STATUSES.has(status) || (status === 409 && error.code === IDEMPOTENCY_IN_PROGRESS);
  return { error, retryable, retryAfterMs };
}

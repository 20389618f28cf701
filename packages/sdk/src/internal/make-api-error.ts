import {
  APIError,
  type APIErrorOptions,
  AuthenticationError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  NotImplementedError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  ValidationError,
} from '../api-errors.js';
import type { ProblemDetails } from '../schemas/problem-details.js';
import { isProblemCode, PROBLEM_CODES } from '../wire/problem-codes.js';

type APIErrorClass = new (
  options: APIErrorOptions & { retryAfterMs: number | undefined },
) => APIError;

const BY_STATUS: ReadonlyMap<number, APIErrorClass> = new Map<number, APIErrorClass>([
  [400, ValidationError],
  [401, AuthenticationError],
  [403, PermissionDeniedError],
  [404, NotFoundError],
  [409, ConflictError],
  [413, PayloadTooLargeError],
  [429, RateLimitError],
  [501, NotImplementedError],
]);

/** What the factory needs to know about a failed response. */
export interface FailedResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly problem: ProblemDetails | undefined;
  readonly method: string;
  readonly url: string;
  readonly retryAfterMs: number | undefined;
}

function classOfStatus(status: number): APIErrorClass | undefined {
  const byStatus = BY_STATUS.get(status);
  if (byStatus !== undefined) return byStatus;
  return status >= 500 && status <= 599 ? InternalServerError : undefined;
}

/**
 * The one place that maps a status and a problem code to an error class. For a status the table
 * above does not know (a 422 from a proxy, say), a problem code of the contract decides by the
 * status the contract gives it; anything else is a plain APIError.
 */
export function errorClassFor(status: number, code: string | undefined): APIErrorClass {
  const byStatus = classOfStatus(status);
  if (byStatus !== undefined) return byStatus;
  const byCode = isProblemCode(code) ? classOfStatus(PROBLEM_CODES[code].status) : undefined;
  return byCode ?? APIError;
}

/** Builds the error for a response with a non-2xx status. */
export function makeAPIError(failed: FailedResponse): APIError {
  const { status, problem } = failed;
  const code = problem?.code ?? `http_${status}`;
  const requestId = failed.headers.get('x-request-id') ?? problem?.requestId;
  const title = problem?.title ?? (failed.statusText || 'HTTP error');
  const detail = problem?.detail === undefined ? '' : `: ${problem.detail}`;
  const request = requestId === undefined ? '' : `, request ${requestId}`;
  const message = `${status} ${title}${detail} (${code}${request}) on ${failed.method} ${failed.url}`;
  const ErrorClass = errorClassFor(status, problem?.code);
  return new ErrorClass({
    message,
    status,
    code,
    requestId,
    method: failed.method,
    url: failed.url,
    body: problem,
    headers: failed.headers,
    retryAfterMs: failed.retryAfterMs,
  });
}

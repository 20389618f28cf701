import { brand, FollowUpError } from './follow-up-error.js';
import type { FieldError, ProblemDetails } from './schemas/problem-details.js';

/**
 * Options of the {@link APIError} constructor (the SDK builds these from a response; tests of
 * your own code can build them too).
 *
 * @example
 * ```ts
 * const error = new NotFoundError({
 *   message: '404 Not Found', status: 404, code: 'not_found', requestId: 'req_1',
 *   method: 'GET', url: 'https://followup.example.com/api/contacts/con_1',
 *   body: undefined, headers: new Headers(),
 * } satisfies APIErrorOptions);
 * ```
 */
export interface APIErrorOptions {
  /** A sentence for people. */
  message: string;
  /** The HTTP status. */
  status: number;
  /** The problem `code`, or `http_<status>` when the body had none. */
  code: string;
  /** The `X-Request-Id` of the response (or the body's `requestId`). */
  requestId: string | undefined;
  /** The request method. */
  method: string;
  /** The request URL. */
  url: string;
  /** The parsed problem+json body, when there was one. */
  body: ProblemDetails | undefined;
  /** The response headers. */
  headers: Headers;
}

/**
 * The service answered with an error status. The subclass says which: {@link ValidationError}
 * (400), {@link AuthenticationError} (401), {@link PermissionDeniedError} (403),
 * {@link NotFoundError} (404), {@link ConflictError} (409), {@link PayloadTooLargeError} (413),
 * {@link RateLimitError} (429), {@link NotImplementedError} (501), {@link InternalServerError}
 * (other 5xx); any other status is a plain `APIError`.
 *
 * @example
 * ```ts
 * catch (error) {
 *   if (APIError.isInstance(error)) {
 *     console.error(error.status, error.code, error.requestId, error.method, error.url);
 *   }
 * }
 * ```
 */
export class APIError extends FollowUpError {
  /** Always `"APIError"`. */
  override readonly name: string = 'APIError';
  /** The HTTP status. */
  readonly status: number;
  /** The `X-Request-Id` of the response, to quote to support. */
  readonly requestId: string | undefined;
  /** The request method, e.g. `GET`. */
  readonly method: string;
  /** The request URL. */
  readonly url: string;
  /** The problem+json body, when the service sent one. */
  readonly body: ProblemDetails | undefined;
  /** The response headers. */
  readonly headers: Headers;

  constructor(options: APIErrorOptions) {
    super({ message: options.message, code: options.code });
    this.status = options.status;
    this.requestId = options.requestId;
    this.method = options.method;
    this.url = options.url;
    this.body = options.body;
    this.headers = options.headers;
  }
}
brand(APIError, 'APIError');

/**
 * 400: the request was refused as invalid (`validation_failed`); {@link ValidationError.errors}
 * says which fields.
 *
 * @example
 * ```ts
 * if (ValidationError.isInstance(error)) for (const e of error.errors) console.log(e.path, e.message);
 * ```
 */
export class ValidationError extends APIError {
  /** Always `"ValidationError"`. */
  override readonly name: string = 'ValidationError';
  /** The field errors of the problem body (empty when it listed none). */
  readonly errors: readonly FieldError[];

  constructor(options: APIErrorOptions) {
    super(options);
    this.errors = options.body?.errors ?? [];
  }
}
brand(ValidationError, 'ValidationError');

/**
 * 401: the token is missing, malformed, unknown, expired or revoked; {@link APIError.code}
 * says which (`token_missing`, `token_malformed` for an `Authorization` header that is not
 * `Bearer <token>`, `token_invalid`, `token_expired`, `token_revoked`, `webhook_secret_invalid`).
 *
 * @example
 * ```ts
 * if (AuthenticationError.isInstance(error) && error.code === 'token_expired') rotateToken();
 * ```
 */
export class AuthenticationError extends APIError {
  /** Always `"AuthenticationError"`. */
  override readonly name: string = 'AuthenticationError';
}
brand(AuthenticationError, 'AuthenticationError');

/**
 * 403: the token is valid but its role lacks the capability.
 *
 * @example
 * ```ts
 * if (PermissionDeniedError.isInstance(error)) console.error('ask an admin for a MANAGER token');
 * ```
 */
export class PermissionDeniedError extends APIError {
  /** Always `"PermissionDeniedError"`. */
  override readonly name: string = 'PermissionDeniedError';
}
brand(PermissionDeniedError, 'PermissionDeniedError');

/**
 * 404: no such record (or route).
 *
 * @example
 * ```ts
 * const contact = await client.contacts.get(id).catch((error) => {
 *   if (NotFoundError.isInstance(error)) return undefined;
 *   throw error;
 * });
 * ```
 */
export class NotFoundError extends APIError {
  /** Always `"NotFoundError"`. */
  override readonly name: string = 'NotFoundError';
}
brand(NotFoundError, 'NotFoundError');

/**
 * 409: a conflict, e.g. `idempotency_conflict` (the same `Idempotency-Key` with another body).
 *
 * @example
 * ```ts
 * if (ConflictError.isInstance(error)) console.error(error.code);
 * ```
 */
export class ConflictError extends APIError {
  /** Always `"ConflictError"`. */
  override readonly name: string = 'ConflictError';
}
brand(ConflictError, 'ConflictError');

/**
 * 413: the request body is over the service's limit (1 MiB).
 *
 * @example
 * ```ts
 * if (PayloadTooLargeError.isInstance(error)) console.error('split the request');
 * ```
 */
export class PayloadTooLargeError extends APIError {
  /** Always `"PayloadTooLargeError"`. */
  override readonly name: string = 'PayloadTooLargeError';
}
brand(PayloadTooLargeError, 'PayloadTooLargeError');

/**
 * 429: too many requests. It is thrown after the retries ran out (or when waiting would pass the
 * call's timeout); {@link RateLimitError.retryAfterMs} says how long the service asked to wait.
 *
 * @example
 * ```ts
 * if (RateLimitError.isInstance(error)) console.log(`retry in ${error.retryAfterMs} ms`);
 * ```
 */
export class RateLimitError extends APIError {
  /** Always `"RateLimitError"`. */
  override readonly name: string = 'RateLimitError';
  /** The `Retry-After` of the response in milliseconds (uncapped), when it had a valid one. */
  readonly retryAfterMs: number | undefined;

  constructor(options: APIErrorOptions & { retryAfterMs: number | undefined }) {
    super(options);
    this.retryAfterMs = options.retryAfterMs;
  }
}
brand(RateLimitError, 'RateLimitError');

/**
 * 501: the service does not implement this (e.g. an EHR vendor without an inbound scheme).
 *
 * @example
 * ```ts
 * if (NotImplementedError.isInstance(error)) console.error(error.code); // vendor_not_supported
 * ```
 */
export class NotImplementedError extends APIError {
  /** Always `"NotImplementedError"`. */
  override readonly name: string = 'NotImplementedError';
}
brand(NotImplementedError, 'NotImplementedError');

/**
 * A 5xx other than 501, after the retries (500, 502, 503 and 504 are retried).
 *
 * @example
 * ```ts
 * if (InternalServerError.isInstance(error)) console.error('FollowUp is having trouble', error.requestId);
 * ```
 */
export class InternalServerError extends APIError {
  /** Always `"InternalServerError"`. */
  override readonly name: string = 'InternalServerError';
}
brand(InternalServerError, 'InternalServerError');

import type { FieldError, ProblemDetails } from './schemas/problem-details.js';

const brandKey = Symbol.for('@followup/sdk.error');
const brandNames = new WeakMap<object, string>();

function hasBrand(value: unknown, name: string): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const names = (value as { [brandKey]?: unknown })[brandKey];
  return Array.isArray(names) && names.includes(name);
}

function brand<T extends object>(errorClass: T, name: string): T {
  brandNames.set(errorClass, name);
  // Each class gets its own bound guard, so `errors.filter(NotFoundError.isInstance)` works too.
  Object.defineProperty(errorClass, 'isInstance', {
    value: (value: unknown) => hasBrand(value, name),
    writable: false,
    enumerable: false,
    configurable: true,
  });
  return errorClass;
}

/**
 * Where a list walk can start again after an error: spread it into the same `list()` call.
 * `{ offset }` for offset lists, `{ cursor }` for cursor lists and for contacts and deals walked
 * by cursor. Only an error of a page after the first carries one: when the first page fails,
 * there is no walk to resume, and calling `list()` again is the way to start over.
 *
 * @example
 * ```ts
 * client.contacts.list({ limit: 200, ...error.resumeFrom });
 * ```
 */
export type ResumeFrom =
  | {
      /** The offset of the page that failed. */
      readonly offset: number;
    }
  | {
      /**
       * The cursor of the page that failed; absent when the walk is to start from the beginning
       * (a `contacts.sync()` that failed before it had a position).
       */
      readonly cursor?: string;
    };

/**
 * Options of the {@link FollowUpError} constructor.
 *
 * @example
 * ```ts
 * const options: FollowUpErrorOptions = { message: 'Sync stopped', code: 'sync_stopped' };
 * throw new FollowUpError(options);
 * ```
 */
export interface FollowUpErrorOptions {
  /** A sentence for people. It must never contain a token, a secret or a payload. */
  message: string;
  /** A machine-readable code. */
  code: string;
  /** The error that caused this one. */
  cause?: unknown;
}

/**
 * The base of every error the SDK throws. `FollowUpError.isInstance(error)` (and the same
 * method on every subclass) recognises errors from any copy of the package, including the ESM and
 * CommonJS builds loaded together, where `instanceof` would say no.
 *
 * Messages never contain the token, a secret or a request body.
 *
 * @example
 * ```ts
 * try {
 *   await client.contacts.get(id);
 * } catch (error) {
 *   if (NotFoundError.isInstance(error)) return null;
 *   if (FollowUpError.isInstance(error)) console.error(error.code, error.message);
 *   throw error;
 * }
 * ```
 */
export class FollowUpError extends Error {
  /** Always `"FollowUpError"`. */
  override readonly name: string = 'FollowUpError';
  /** A machine-readable code: the server's problem `code`, or one of the SDK's own. */
  readonly code: string;
  /**
   * Set when the error ended a list walk: where to resume, without duplicates, by spreading it
   * into the same `list()` call.
   */
  declare resumeFrom?: ResumeFrom;

  constructor(options: FollowUpErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    const names: string[] = [];
    for (
      let current: unknown = new.target;
      typeof current === 'function';
      current = Object.getPrototypeOf(current)
    ) {
      const name = brandNames.get(current);
      if (name !== undefined) names.push(name);
    }
    Object.defineProperty(this, brandKey, { value: Object.freeze(names) });
  }

  /**
   * Whether `value` is an instance of this class (or a subclass), also when it comes from another
   * copy of `@followup/sdk`, where `instanceof` fails.
   *
   * @example
   * ```ts
   * if (RateLimitError.isInstance(error)) await sleep(error.retryAfterMs ?? 1000);
   * ```
   */
  static isInstance<T>(this: { readonly prototype: T }, value: unknown): value is T {
    // Replaced on every class by `brand()` below with a guard bound to that class.
    const name = brandNames.get(FollowUpError);
    return name !== undefined && hasBrand(value, name);
  }
}
brand(FollowUpError, 'FollowUpError');

/**
 * The client or a call was given options that cannot work: a malformed token, a missing
 * `baseUrl`, a `limit` above 200. Thrown before any request is made.
 *
 * @example
 * ```ts
 * try {
 *   new FollowUp({ token: 'oops', baseUrl });
 * } catch (error) {
 *   if (ConfigurationError.isInstance(error)) console.error(error.message);
 * }
 * ```
 */
export class ConfigurationError extends FollowUpError {
  /** Always `"ConfigurationError"`. */
  override readonly name: string = 'ConfigurationError';

  constructor(options: { message: string; cause?: unknown }) {
    super({ ...options, code: 'configuration_invalid' });
  }
}
brand(ConfigurationError, 'ConfigurationError');

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

/**
 * Options of the errors that have a request but no response ({@link APIConnectionError},
 * {@link APITimeoutError}, {@link APIUserAbortError}).
 *
 * @example
 * ```ts
 * const options: RequestErrorOptions = { message: 'offline', method: 'GET', url };
 * const error = new APIConnectionError(options);
 * ```
 */
export interface RequestErrorOptions {
  /** A sentence for people. */
  message: string;
  /** The request method. */
  method: string;
  /** The request URL. */
  url: string;
  /** The underlying error. */
  cause?: unknown;
}

/**
 * The service could not be reached, or the connection broke (after the retries).
 *
 * @example
 * ```ts
 * if (APIConnectionError.isInstance(error)) console.error('network trouble', error.cause);
 * ```
 */
export class APIConnectionError extends FollowUpError {
  /** Always `"APIConnectionError"`. */
  override readonly name: string = 'APIConnectionError';
  /** The request method. */
  readonly method: string;
  /** The request URL. */
  readonly url: string;

  constructor(options: RequestErrorOptions) {
    super({ message: options.message, code: 'connection_failed', cause: options.cause });
    this.method = options.method;
    this.url = options.url;
  }
}
brand(APIConnectionError, 'APIConnectionError');

/**
 * The call's `timeout` ran out: it covers the request, the waits between retries and reading the
 * body.
 *
 * @example
 * ```ts
 * if (APITimeoutError.isInstance(error)) console.error(`${error.method} ${error.url} timed out`);
 * ```
 */
export class APITimeoutError extends FollowUpError {
  /** Always `"APITimeoutError"`. */
  override readonly name: string = 'APITimeoutError';
  /** The request method. */
  readonly method: string;
  /** The request URL. */
  readonly url: string;

  constructor(options: RequestErrorOptions) {
    super({ message: options.message, code: 'timeout', cause: options.cause });
    this.method = options.method;
    this.url = options.url;
  }
}
brand(APITimeoutError, 'APITimeoutError');

/**
 * The caller's `signal` aborted the call (during the request, a wait between retries, or between
 * pages). {@link FollowUpError.cause} is the signal's reason.
 *
 * @example
 * ```ts
 * if (APIUserAbortError.isInstance(error)) return; // we cancelled it ourselves
 * ```
 */
export class APIUserAbortError extends FollowUpError {
  /** Always `"APIUserAbortError"`. */
  override readonly name: string = 'APIUserAbortError';
  /** The request method. */
  readonly method: string;
  /** The request URL. */
  readonly url: string;

  constructor(options: RequestErrorOptions) {
    super({ message: options.message, code: 'aborted', cause: options.cause });
    this.method = options.method;
    this.url = options.url;
  }
}
brand(APIUserAbortError, 'APIUserAbortError');

/**
 * One problem found while validating a response.
 *
 * @example
 * ```ts
 * for (const issue of error.issues) console.log(issue.path.join('.'), issue.message);
 * ```
 */
export interface ResponseIssue {
  /** Where in the body, as a list of keys. */
  readonly path: readonly PropertyKey[];
  /** What is wrong there (never the value itself). */
  readonly message: string;
}

/**
 * A response (or a webhook body) does not match the schema of this SDK version: a required field
 * is missing or has the wrong type, or the body is not JSON. Unknown fields and unknown enum
 * values never cause it. With `validation: 'warn'` it is logged instead of thrown.
 *
 * @example
 * ```ts
 * if (ResponseValidationError.isInstance(error)) console.error(error.issues);
 * ```
 */
export class ResponseValidationError extends FollowUpError {
  /** Always `"ResponseValidationError"`. */
  override readonly name: string = 'ResponseValidationError';
  /** What is wrong, without the values. */
  readonly issues: readonly ResponseIssue[];
  /** The HTTP status of the response, when it came from a request. */
  readonly status: number | undefined;
  /** The `X-Request-Id` of the response, when it came from a request. */
  readonly requestId: string | undefined;
  /** The request method, when it came from a request. */
  readonly method: string | undefined;
  /** The request URL, when it came from a request. */
  readonly url: string | undefined;

  constructor(options: {
    message: string;
    issues: readonly ResponseIssue[];
    status?: number | undefined;
    requestId?: string | undefined;
    method?: string | undefined;
    url?: string | undefined;
  }) {
    super({ message: options.message, code: 'response_invalid' });
    this.issues = options.issues;
    this.status = options.status;
    this.requestId = options.requestId;
    this.method = options.method;
    this.url = options.url;
  }
}
brand(ResponseValidationError, 'ResponseValidationError');

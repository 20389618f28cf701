import { brand, FollowUpError } from './follow-up-error.js';

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
 * @internal What {@link APIConnectionError}, {@link APITimeoutError} and
 * {@link APIUserAbortError} share, made in one place: a request that got no response, its method
 * and URL, and the code each class gives. Not exported: users catch the three classes (which
 * declare its fields again, so that each one's documentation lists them as its own).
 */
abstract class RequestError extends FollowUpError {
  /** The request method. */
  readonly method: string;
  /** The request URL. */
  readonly url: string;

  constructor(options: RequestErrorOptions, code: string) {
    super({ message: options.message, code, cause: options.cause });
    this.method = options.method;
    this.url = options.url;
  }
}

/**
 * The service could not be reached, or the connection broke (after the retries).
 *
 * @example
 * ```ts
 * if (APIConnectionError.isInstance(error)) console.error('network trouble', error.cause);
 * ```
 */
export class APIConnectionError extends RequestError {
  /** Always `"APIConnectionError"`. */
  override readonly name: string = 'APIConnectionError';
  /** The request method. */
  declare readonly method: string;
  /** The request URL. */
  declare readonly url: string;

  constructor(options: RequestErrorOptions) {
    super(options, 'connection_failed');
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
export class APITimeoutError extends RequestError {
  /** Always `"APITimeoutError"`. */
  override readonly name: string = 'APITimeoutError';
  /** The request method. */
  declare readonly method: string;
  /** The request URL. */
  declare readonly url: string;

  constructor(options: RequestErrorOptions) {
    super(options, 'timeout');
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
export class APIUserAbortError extends RequestError {
  /** Always `"APIUserAbortError"`. */
  override readonly name: string = 'APIUserAbortError';
  /** The request method. */
  declare readonly method: string;
  /** The request URL. */
  declare readonly url: string;

  constructor(options: RequestErrorOptions) {
    super(options, 'aborted');
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

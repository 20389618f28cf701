import { PROBLEM_CODES, type ProblemCode, type ProblemResponse } from '@followup/sdk';
import { FollowUpServerError } from './errors.js';

// Outside plugins/, so that the domain folders (users/…) that refuse with a problem do not depend
// on the HTTP plugins; plugins/problem.ts turns it into the response.

/** One invalid field of a `validation_failed` problem (the SDK's `problemResponseSchema`). */
export type ProblemFieldError = NonNullable<ProblemResponse['errors']>[number];

/** Options of {@link ProblemError}. */
export interface ProblemErrorOptions {
  /**
   * Machine-readable code, such as `token_expired`: one of the SDK's `PROBLEM_CODES`, whose
   * entry gives the HTTP status.
   */
  code: ProblemCode;
  /** For people: what went wrong with this request. Never a token, a secret or a body. */
  detail: string;
  /** The invalid fields, for `validation_failed`. */
  errors?: ProblemFieldError[];
  /** Response headers to add, such as `WWW-Authenticate` or `Retry-After`. */
  headers?: Record<string, string>;
  /**
   * More members of the body (RFC 9457 extension members), such as `GET /readyz`'s `checks`;
   * they never replace a member the contract defines.
   */
  extensions?: Record<string, unknown>;
}

/**
 * An error that becomes an RFC 9457 `application/problem+json` response: throw it from a route
 * or a hook and the error handler answers with its code, detail and the status that the SDK's
 * `PROBLEM_CODES` gives the code (never another, so that a client can rely on the catalogue).
 *
 * @example
 * ```ts
 * throw new ProblemError({ code: 'not_found', detail: 'No contact has this id.' });
 * ```
 */
export class ProblemError extends FollowUpServerError {
  /** Machine-readable code: one of the SDK's `PROBLEM_CODES`. */
  declare readonly code: ProblemCode;
  /** HTTP status: the one `PROBLEM_CODES` gives {@link ProblemError.code}. */
  readonly status: number;
  /** The invalid fields, for `validation_failed`. */
  readonly errors: ProblemFieldError[] | undefined;
  /** Response headers to add. */
  readonly headers: Record<string, string>;
  /** More members of the body (RFC 9457 extension members). */
  readonly extensions: Record<string, unknown> | undefined;

  constructor(options: ProblemErrorOptions) {
    super({ message: options.detail, code: options.code });
    this.name = 'ProblemError';
    this.status = PROBLEM_CODES[options.code].status;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.extensions = options.extensions;
  }
}

/**
 * The prefix of every problem `type`: `urn:followup:problem:<code>`.
 *
 * @example
 * ```ts
 * problem.type === `${PROBLEM_TYPE_PREFIX}not_found`;
 * ```
 */
export const PROBLEM_TYPE_PREFIX = 'urn:followup:problem:';

/**
 * The `type` URI of a problem with this code: `urn:followup:problem:<code>`.
 *
 * @example
 * ```ts
 * problemType('token_expired'); // 'urn:followup:problem:token_expired'
 * ```
 */
export function problemType(code: string): string {
  return `${PROBLEM_TYPE_PREFIX}${code}`;
}

/**
 * Which requests a problem code can answer: `any` route; only the routes authenticated by a
 * `bearer` token (or the web session), by the `inbox` webhook's secret or by an `ehr` vendor's
 * signature; or, for `transport`, any request at all, refused by the HTTP parser, the router or
 * the server itself beside what its route declares (these are not listed per operation in the
 * OpenAPI document).
 */
export type ProblemScope = 'any' | 'bearer' | 'inbox' | 'ehr' | 'transport';

/** What the contract says about one problem code. */
export interface ProblemCodeDefinition {
  /** The HTTP status it is sent with. */
  readonly status: number;
  /** Which requests can get it. */
  readonly scope: ProblemScope;
}

function code(status: number, scope: ProblemScope): ProblemCodeDefinition {
  return { status, scope };
}

/**
 * Every problem code the service answers with, its status and which requests can get it (what
 * each one means is in its documentation, and in docs/api-contract.md): the
 * one list the server's problem responses, its OpenAPI document, the SDK's status-to-error map
 * and the tests share. Codes within one status are in the order the OpenAPI document names them.
 * A code is stable across releases; a new release may add codes (handle an unknown one by its
 * status).
 *
 * @example
 * ```ts
 * import { PROBLEM_CODES } from '@followup/sdk';
 *
 * PROBLEM_CODES.token_revoked.status; // 401
 * ```
 */
export const PROBLEM_CODES = Object.freeze({
  /** A parameter or a body field is invalid; `errors` names each one. */
  validation_failed: code(400, 'any'),
  /** The body is not valid JSON, or is empty. */
  invalid_json: code(400, 'any'),
  /** The request could not be processed. */
  bad_request: code(400, 'any'),
  /** The URL has a malformed percent-encoding. */
  malformed_url: code(400, 'transport'),
  /** The Content-Length header does not match the body. */
  invalid_content_length: code(400, 'transport'),
  /** No bearer token was sent. */
  token_missing: code(401, 'bearer'),
  /**
   * An `Authorization` header was sent but is not `Bearer <token>`: a token without the scheme,
   * another scheme (`Basic …`), or the scheme without a token.
   */
  token_malformed: code(401, 'bearer'),
  /** The token does not follow the token grammar, or its account or secret is unknown. */
  token_invalid: code(401, 'bearer'),
  /** The token is past its TTL. */
  token_expired: code(401, 'bearer'),
  /** The token was revoked (or its account disabled). */
  token_revoked: code(401, 'bearer'),
  /** X-Service-Webhook-Secret is missing or wrong. */
  webhook_secret_invalid: code(401, 'inbox'),
  /** The vendor's signature is missing or does not match; a receipt is still recorded. */
  signature_invalid: code(401, 'ehr'),
  /** The caller's role lacks the capability the route requires. */
  forbidden: code(403, 'any'),
  /** A web session made an unsafe request without a valid CSRF token and origin. */
  csrf_invalid: code(403, 'any'),
  /** No route, or no record with this id. */
  not_found: code(404, 'any'),
  /** No EHR vendor has this key. */
  unknown_vendor: code(404, 'ehr'),
  /** The request took too long to arrive. */
  request_timeout: code(408, 'transport'),
  /** A unique value is already taken. */
  conflict: code(409, 'any'),
  /** This Idempotency-Key was used with another request. */
  idempotency_conflict: code(409, 'any'),
  /** The first request with this Idempotency-Key is still running; retry after Retry-After. */
  idempotency_in_progress: code(409, 'any'),
  /**
   * Change sync: the position (a `cursor`, or `updatedSince`) is older than tombstones the
   * server's retention pruned; sync again from the start and replace the copy.
   */
  resync_required: code(410, 'any'),
  /** The body is larger than 1 MiB. */
  payload_too_large: code(413, 'any'),
  /** A path segment is too long. */
  uri_too_long: code(414, 'transport'),
  /** The body is not application/json. */
  unsupported_media_type: code(415, 'any'),
  /**
   * The request names another host (`Host`, or `X-Forwarded-Host` from a trusted proxy) than
   * the server's public URL (`--public-url`); send it to that URL.
   */
  misdirected_request: code(421, 'transport'),
  /**
   * The webhook endpoint URL is refused by the server's address policy: not `http` or `https`,
   * no host, a user name or password in it, or longer than 2,048 characters once normalised.
   */
  invalid_endpoint_url: code(422, 'any'),
  /** Too many requests with this token; retry after Retry-After. */
  rate_limited: code(429, 'any'),
  /** The request headers are larger than the server accepts. */
  headers_too_large: code(431, 'transport'),
  /** The server failed; quote the requestId when reporting it. */
  internal_error: code(500, 'transport'),
  /** The EHR vendor has no inbound webhook scheme, or no secret is configured for it. */
  vendor_not_supported: code(501, 'any'),
  /** The server is not ready (or is stopping). */
  unavailable: code(503, 'any'),
  /** A query ran past the statement timeout and was cancelled; retry after Retry-After. */
  query_timeout: code(503, 'transport'),
});

/**
 * A problem code of this contract: a key of {@link PROBLEM_CODES}.
 *
 * @example
 * ```ts
 * const code: ProblemCode = 'validation_failed';
 * ```
 */
export type ProblemCode = keyof typeof PROBLEM_CODES;

/**
 * Whether `code` is one of {@link PROBLEM_CODES} (a later server may send others).
 *
 * @example
 * ```ts
 * if (isProblemCode(error.code)) console.log(PROBLEM_CODES[error.code].status);
 * ```
 */
export function isProblemCode(code: unknown): code is ProblemCode {
  return typeof code === 'string' && Object.hasOwn(PROBLEM_CODES, code);
}

/**
 * The problem codes a route authenticated by `scope` can answer with `status`, in catalogue
 * order: the codes of that scope when there are any (an EHR route's 401 is only
 * `signature_invalid`), otherwise the codes any route can give. `transport` codes are never
 * listed.
 *
 * @example
 * ```ts
 * problemCodesOf(401, 'inbox'); // ['webhook_secret_invalid']
 * ```
 */
export function problemCodesOf(
  status: number,
  scope: Exclude<ProblemScope, 'transport'>,
): readonly ProblemCode[] {
  const withStatus = (Object.keys(PROBLEM_CODES) as ProblemCode[]).filter(
    (code) => PROBLEM_CODES[code].status === status,
  );
  const own = withStatus.filter((code) => PROBLEM_CODES[code].scope === scope);
  return own.length > 0 ? own : withStatus.filter((code) => PROBLEM_CODES[code].scope === 'any');
}

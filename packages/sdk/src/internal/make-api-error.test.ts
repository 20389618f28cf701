import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  APIError,
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
import { PROBLEM_CODES, type ProblemCode } from '../wire/problem-codes.js';
import { errorClassFor, makeAPIError } from './make-api-error.js';

const byStatus = [
  [400, ValidationError],
  [401, AuthenticationError],
  [403, PermissionDeniedError],
  [404, NotFoundError],
  [409, ConflictError],
  [413, PayloadTooLargeError],
  [429, RateLimitError],
  [501, NotImplementedError],
  [500, InternalServerError],
  [502, InternalServerError],
  [503, InternalServerError],
  [504, InternalServerError],
  [418, APIError],
  [405, APIError],
] as const;

function failed(status: number, code?: string) {
  return {
    status,
    statusText: 'Status text',
    headers: new Headers({ 'x-request-id': 'req_header' }),
    problem: code === undefined ? undefined : { code, title: 'Title', requestId: 'req_body' },
    method: 'GET',
    url: 'http://127.0.0.1/api/contacts',
    retryAfterMs: undefined,
  };
}

describe('makeAPIError', () => {
  it.each(byStatus)('maps %i to its class', (status, ErrorClass) => {
    const error = makeAPIError(failed(status));
    expect(error).toBeInstanceOf(ErrorClass);
    expect(error.constructor).toBe(ErrorClass);
    expect(error.code).toBe(`http_${status}`);
    expect(error.requestId).toBe('req_header');
  });

  it('lets the problem code decide only for a status it does not map', () => {
    expect(errorClassFor(422, 'validation_failed')).toBe(ValidationError);
    expect(errorClassFor(400, 'rate_limited')).toBe(ValidationError);
    expect(errorClassFor(499, 'token_expired')).toBe(AuthenticationError);
    expect(errorClassFor(520, 'unknown_code')).toBe(InternalServerError);
    expect(errorClassFor(500, 'not_found')).toBe(InternalServerError);
    expect(errorClassFor(418, 'unknown_code')).toBe(APIError);
  });

  it("maps every code of the contract, under a status it does not map, to its own status's class", () => {
    for (const code of Object.keys(PROBLEM_CODES) as ProblemCode[]) {
      expect(errorClassFor(422, code), code).toBe(errorClassFor(PROBLEM_CODES[code].status, code));
    }
    expect(errorClassFor(422, 'idempotency_in_progress')).toBe(ConflictError);
    expect(errorClassFor(422, 'query_timeout')).toBe(InternalServerError);
    expect(errorClassFor(422, 'unsupported_media_type')).toBe(APIError);
    // Inherited names of a plain object are not codes.
    expect(errorClassFor(422, 'constructor')).toBe(APIError);
  });

  it('always gives an APIError with the status, a code and a message naming the request', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 300, max: 599 }),
        fc.option(fc.string({ maxLength: 30 }), { nil: undefined }),
        (status, code) => {
          const error = makeAPIError(failed(status, code));
          expect(APIError.isInstance(error)).toBe(true);
          expect(error.status).toBe(status);
          expect(error.code).toBe(code ?? `http_${status}`);
          expect(error.message).toContain(`${status}`);
          expect(error.message).toContain('GET http://127.0.0.1/api/contacts');
          if (status >= 500 && status !== 501) {
            expect(error.constructor).toBe(InternalServerError);
          }
        },
      ),
    );
  });
});

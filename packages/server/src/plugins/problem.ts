import { STATUS_CODES } from 'node:http';
import { type ProblemResponse, problemType } from '@followup/sdk';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { type Clock, systemClock } from '../clock.js';
import {
  ProblemError,
  type ProblemErrorOptions,
  type ProblemFieldError,
} from '../problem-error.js';
import { isDatabaseUnreachable } from '../storage/database-reachability.js';
import { createShedLog } from './shed-log.js';

/**
 * The body of every error response (RFC 9457): the SDK's `problemResponseSchema`, `type` being
 * `urn:followup:problem:<code>`.
 */
export type ProblemDetails = ProblemResponse;

function pathOf(instancePath: string | undefined, fallback: string | undefined): string {
  const path = (instancePath ?? '')
    .split('/')
    .filter((part) => part !== '')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .join('.');
  return path === '' ? (fallback ?? '') : path;
}

function fieldErrors(error: FastifyError): ProblemFieldError[] {
  return (error.validation ?? []).flatMap((issue) => {
    const params = issue.params as { missingProperty?: string; keys?: unknown } | undefined;
    // A field the schema does not know (a strict object): name the field itself.
    if (issue.keyword === 'unrecognized_keys' && Array.isArray(params?.keys)) {
      const parent = pathOf(issue.instancePath, undefined);
      return params.keys.map((key) => {
        const path = parent === '' ? String(key) : `${parent}.${String(key)}`;
        return { path, message: `${path} is not a field of this request` };
      });
    }
    const missing = params?.missingProperty;
    return [{ path: pathOf(issue.instancePath, missing), message: issue.message ?? 'is invalid' }];
  });
}

const fastifyCodes: Record<string, ProblemErrorOptions> = {
  FST_ERR_CTP_BODY_TOO_LARGE: {
    code: 'payload_too_large',
    detail: 'The request body is larger than the server accepts (1 MiB).',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'unsupported_media_type',
    detail: 'The request body must be application/json.',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: {
    code: 'invalid_json',
    detail: 'The request body is not valid JSON.',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    code: 'invalid_json',
    detail: 'The request body is empty but its content type is application/json.',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'invalid_content_length',
    detail: 'The Content-Length header does not match the body.',
  },
};

// SQLSTATEs of text the database refuses: character_not_in_repertoire, untranslatable_character.
const unstorableTextCodes = new Set(['22021', '22P05']);

/** The `Retry-After` of a request that failed because the database cannot be reached, in seconds. */
export const DATABASE_UNREACHABLE_RETRY_AFTER_SECONDS = 5;

/** @internal Maps any error a request can end in to the problem it answers with. */
export function toProblem(error: unknown): ProblemError {
  if (error instanceof ProblemError) return error;
  const fastifyError = error as FastifyError;
  if (hasZodFastifySchemaValidationErrors(error) || Array.isArray(fastifyError?.validation)) {
    return new ProblemError({
      code: 'validation_failed',
      detail: 'The request is not valid: see errors.',
      errors: fieldErrors(fastifyError),
    });
  }
  // JSON.parse's own SyntaxError reaches here too; its message quotes the body, so never use it.
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) {
    return toProblem(Object.assign(new Error(), { code: 'FST_ERR_CTP_INVALID_JSON_BODY' }));
  }
  // The schemas refuse text PostgreSQL cannot store (NUL, unpaired surrogates) field by field;
  // should a value reach the database another way, its refusal is still the request's fault.
  if (typeof fastifyError?.code === 'string' && unstorableTextCodes.has(fastifyError.code)) {
    return new ProblemError({
      code: 'validation_failed',
      detail:
        'The request contains text that cannot be stored (a NUL character or an unpaired surrogate).',
    });
  }
  // Too many queries wait for the database already: refused at once rather than queued.
  if (fastifyError?.code === 'database_busy') {
    return new ProblemError({
      code: 'unavailable',
      detail: 'The server is saturated: too many requests wait for the database. Retry shortly.',
      headers: { 'Retry-After': '1' },
    });
  }
  // PostgreSQL cancelled a statement that ran past statement_timeout: busy, not broken.
  if (fastifyError?.code === '57014') {
    return new ProblemError({
      code: 'query_timeout',
      detail: 'The query took too long and was cancelled. Retry later, or ask for less.',
      headers: { 'Retry-After': '1' },
    });
  }
  // The database is down or restarting: the client may retry, as after a shed request.
  if (isDatabaseUnreachable(error)) {
    return new ProblemError({
      code: 'unavailable',
      detail: 'The database cannot be reached at the moment. Retry shortly.',
      headers: { 'Retry-After': String(DATABASE_UNREACHABLE_RETRY_AFTER_SECONDS) },
    });
  }
  const known = fastifyError?.code ? fastifyCodes[fastifyError.code] : undefined;
  if (known) return new ProblemError(known);
  // Any other client error (Fastify's are all 400 today) is the catalogue's 400 bad_request.
  const status = fastifyError?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new ProblemError({
      code: 'bad_request',
      detail: 'The request could not be processed.',
    });
  }
  return new ProblemError({
    code: 'internal_error',
    detail: 'The server failed to process the request. Quote the requestId when reporting it.',
  });
}

// The code each problem answer carried, for its request's log line (see logging.ts); a weak map,
// so that nothing outlives the request.
const answeredProblems = new WeakMap<FastifyRequest, ProblemError['code']>();

/** @internal The problem code the request was answered with, if it was answered with a problem. */
export function answeredProblemCode(request: FastifyRequest): ProblemError['code'] | undefined {
  return answeredProblems.get(request);
}

/** @internal Sends a problem as `application/problem+json`. */
export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  problem: ProblemError,
): FastifyReply {
  answeredProblems.set(request, problem.code);
  const body: ProblemDetails = {
    type: problemType(problem.code),
    title: STATUS_CODES[problem.status] ?? 'Error',
    status: problem.status,
    detail: problem.message,
    code: problem.code,
    requestId: request.id,
  };
  if (problem.errors) body.errors = problem.errors;
  return reply
    .code(problem.status)
    .headers(problem.headers)
    .type('application/problem+json; charset=utf-8')
    .serializer(JSON.stringify)
    .send(problem.extensions ? { ...problem.extensions, ...body } : body);
}

/** @internal Options of {@link installProblemHandling}. */
export interface ProblemHandlingOptions {
  /**
   * Answers an unknown route with a page instead, when the request is a person's (the web
   * console's 404 and 405 pages, `src/web/console-fallback.ts`); `undefined` leaves it to
   * problem+json.
   */
  notFoundPage?: (
    request: FastifyRequest,
    reply: FastifyReply,
  ) => Promise<FastifyReply> | undefined;
  /** The time the lines of shed requests are spaced by (see `shed-log.ts`); the system's by default. */
  clock?: Clock;
}

/**
 * @internal Answers every error and every unknown route with problem+json (an unknown route may
 * be answered with a page instead: `notFoundPage`). Server faults (5xx) are logged once more,
 * with their stack; a client error's code is on its request's line (at `info`), and has a line
 * of its own at `debug` only.
 */
export function installProblemHandling(
  app: FastifyInstance,
  options: ProblemHandlingOptions = {},
): void {
  const logShed = createShedLog(options.clock ?? systemClock);
  app.setErrorHandler((error, request, reply) => {
    const problem = toProblem(error);
    // An unreachable database is logged once when it goes and once when it returns
    // (watchReachability), not once per request.
    if (isDatabaseUnreachable(error))
      request.log.debug({ code: problem.code }, 'database unreachable');
    // A saturated server says so once in a while, without a stack: it is not a fault.
    else if (problem.code === 'unavailable') logShed(request.log);
    else if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.debug({ code: problem.code, status: problem.status }, 'request refused');
    return sendProblem(request, reply, problem);
  });
  app.setNotFoundHandler(
    (request, reply) =>
      options.notFoundPage?.(request, reply) ??
      sendProblem(
        request,
        reply,
        new ProblemError({
          code: 'not_found',
          detail: 'No route matches this method and path.',
        }),
      ),
  );
}

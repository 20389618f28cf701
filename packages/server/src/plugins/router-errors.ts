import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { PROBLEM_CODES, type ProblemCode, problemType } from '@followup/sdk';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError, type ProblemErrorOptions } from '../problem-error.js';
import { type ProblemDetails, sendProblem } from './problem.js';
import { REQUEST_ID_HEADER } from './request-id.js';

/**
 * The longest path parameter the router accepts, in characters (Fastify's default is 100). It
 * is above every id and key the schemas allow (at most 255), so that an over-long id is a 400
 * `validation_failed` naming the parameter; past it the answer is 414 `uri_too_long`.
 */
export const MAX_PARAM_LENGTH = 512;

const routerProblems: Record<string, ProblemErrorOptions> = {
  FST_ERR_BAD_URL: {
    code: 'malformed_url',
    detail: 'The URL is not valid: it has a malformed percent-encoding.',
  },
  FST_ERR_MAX_PARAM_LENGTH: {
    code: 'uri_too_long',
    detail: `A path segment is longer than ${MAX_PARAM_LENGTH} characters.`,
  },
};

/**
 * @internal Fastify's `frameworkErrors`: the router's own failures (a malformed URL, an over-long
 * path parameter), which happen before any route or hook, answered as problem+json with the
 * request's id like every other error.
 */
export function routerErrorHandler(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const known = routerProblems[error.code];
  const problem = new ProblemError(
    known ?? { code: 'bad_request', detail: 'The request could not be processed.' },
  );
  // Its code is on the request's line: at info, one line a request.
  request.log.debug(
    { code: problem.code, status: problem.status },
    'request refused by the router',
  );
  // No hook runs for these: set the request id here.
  reply.header(REQUEST_ID_HEADER, request.id);
  void sendProblem(request, reply, problem);
}

const clientProblems: Record<string, { code: ProblemCode; detail: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: {
    code: 'request_timeout',
    detail: 'The request took too long to arrive.',
  },
  HPE_HEADER_OVERFLOW: {
    code: 'headers_too_large',
    detail: 'The request headers are larger than the server accepts.',
  },
};

/**
 * @internal Node's `clientError` (a request the HTTP parser refused, or one that timed out):
 * answered with a problem+json body and an `X-Request-Id`, then the socket is closed, as Node
 * and Fastify do.
 */
export function createClientErrorHandler(
  newRequestId: () => string,
): (this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket) => void {
  // Fastify calls it with `this` bound to the instance.
  return function clientErrorHandler(error, socket) {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const known = error.code === undefined ? undefined : clientProblems[error.code];
    const { code, detail } = known ?? {
      code: 'bad_request',
      detail: 'The request is not valid HTTP.',
    };
    const status = PROBLEM_CODES[code].status;
    const requestId = newRequestId();
    this.log.info({ requestId, code, status }, 'client error');
    const title = STATUS_CODES[status] ?? 'Error';
    const body: ProblemDetails = {
      type: problemType(code),
      title,
      status,
      detail,
      code,
      requestId,
    };
    const text = JSON.stringify(body);
    // A response already under way on this socket cannot be followed by another one.
    const busy = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage
      ?.headersSent;
    if (socket.writable && !busy) {
      socket.write(
        `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(text)}\r\n${REQUEST_ID_HEADER}: ${requestId}\r\n` +
          `Connection: close\r\n\r\n${text}`,
      );
    }
    socket.destroy(error);
  };
}

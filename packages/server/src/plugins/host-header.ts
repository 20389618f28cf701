import type { FastifyInstance } from 'fastify';
import { ProblemError, sendProblem } from './problem.js';

/**
 * @internal An HTTP/1.1 request without a `Host` header is answered 400 `bad_request` as
 * problem+json with `X-Request-Id` and `Connection: close` (RFC 9112 asks for a 400), before any
 * other hook or the route runs. Node would answer it a plain 400 without a body or a request id
 * itself: `buildServer` turns that off (`requireHostHeader: false`) so that this hook answers.
 */
export function installHostHeaderCheck(app: FastifyInstance): void {
  // A callback hook, as the other checks run on every request: an async hook costs a promise
  // and a turn of the microtask queue per request (measured with the create benchmark).
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    if (raw.headers.host !== undefined || raw.httpVersion !== '1.1') {
      done();
      return;
    }
    sendProblem(
      request,
      reply,
      new ProblemError({
        status: 400,
        code: 'bad_request',
        detail: 'An HTTP/1.1 request must have a Host header.',
        headers: { Connection: 'close' },
      }),
    );
    // Answered here; Fastify runs nothing more for a sent reply.
    done();
  });
}

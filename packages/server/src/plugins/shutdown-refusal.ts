import type { FastifyInstance } from 'fastify';
import { ProblemError } from '../problem-error.js';
import { sendProblem } from './problem.js';

/** @internal The probes a closing server still answers itself (see `routes/health.ts`). */
export const PROBE_ROUTES: ReadonlySet<string> = new Set(['/livez', '/readyz']);

/** The `Retry-After` of a request refused because the server is shutting down, in seconds. */
export const SHUTDOWN_RETRY_AFTER_SECONDS = 5;

/**
 * @internal Once `app.close()` began, a request that still arrives (on a keep-alive connection
 * opened before) is answered 503 `unavailable` as problem+json, with `X-Request-Id`,
 * `Retry-After` and `Connection: close`, before any other hook or the route runs; requests
 * already running finish normally. It replaces Fastify's own plain JSON 503
 * (`return503OnClosing`, turned off in `buildServer`). Install it before every other
 * `onRequest` hook. The probes (`GET /livez`, `GET /readyz`) are let through, so that `/readyz`
 * says which check failed; it reads the state through the function returned.
 */
export function installShutdownRefusal(app: FastifyInstance): () => boolean {
  let closing = false;
  // preClose runs as soon as close() begins, before the server stops accepting connections.
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (!closing || PROBE_ROUTES.has(request.routeOptions.url ?? '')) {
      done();
      return;
    }
    // The request's line says 503 unavailable: at info, one line a request.
    request.log.debug('request refused: the server is shutting down');
    sendProblem(
      request,
      reply,
      new ProblemError({
        code: 'unavailable',
        detail: 'The server is shutting down: retry in a few seconds, or on another instance.',
        headers: {
          'Retry-After': String(SHUTDOWN_RETRY_AFTER_SECONDS),
          Connection: 'close',
        },
      }),
    );
    // Answered here; Fastify runs nothing more for a sent reply.
    done();
  });
  return () => closing;
}

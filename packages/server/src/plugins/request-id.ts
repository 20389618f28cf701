import type { FastifyInstance } from 'fastify';

/** The response header that carries the request id. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * @internal Sends the request's id (`req_…`, made by the server: an incoming `X-Request-Id` is
 * not trusted) on every response, errors and unknown routes included.
 */
export function installRequestIds(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done(null, payload);
  });
}

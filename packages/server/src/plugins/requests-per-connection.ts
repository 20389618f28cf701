import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ProblemError } from '../problem-error.js';
import { sendProblem } from './problem.js';

/**
 * @internal Ends each keep-alive connection after `maxRequests` requests: the last one's answer
 * carries `Connection: close`, so that the client opens a new connection (which a load balancer
 * may send to another instance) and no connection lives forever. A request a client pipelined
 * past the limit is not run: it is answered 503 `unavailable` (which the closing connection
 * drops), and the client sends it again on a new connection, as HTTP asks. This is Node's
 * `server.maxRequestsPerSocket`, except that Node answers those requests with a plain 503
 * without a body or `X-Request-Id`.
 */
export function installRequestsPerConnection(app: FastifyInstance, maxRequests: number): void {
  const counts = new WeakMap<Socket, number>();
  // A callback hook, not an async one: it runs on every request, and a promise per request
  // for what is a counter is measurable (see `installHostHeaderCheck`).
  app.addHook('onRequest', (request, reply, done) => {
    const socket = request.raw.socket;
    // inject() has no real socket to count.
    const count = socket ? (counts.get(socket) ?? 0) + 1 : 0;
    if (socket) counts.set(socket, count);
    if (count < maxRequests) {
      done();
      return;
    }
    reply.header('Connection', 'close');
    if (count === maxRequests) {
      done();
      return;
    }
    // Answered here; Fastify runs nothing more for a sent reply.
    sendProblem(
      request,
      reply,
      new ProblemError({
        code: 'unavailable',
        detail: `This connection already carried ${maxRequests} requests: send it on a new one.`,
        headers: { 'Retry-After': '0', Connection: 'close' },
      }),
    );
    done();
  });
}

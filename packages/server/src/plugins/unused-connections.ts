import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * @internal Once `app.close()` began, closes the connections that carry no request: those that
 * have not sent a whole request yet (opened and silent, or halfway through their headers), and
 * any opened from then on. Node's `server.close()` waits for every connection, and Fastify
 * closes only the idle keep-alive ones, so a connection that never sent a request held a
 * shutdown until its idle timeout (`idleTimeoutMs`, 60 s by default). Nothing was asked of the
 * server on such a connection, so nothing is lost: its client sees the connection close and
 * tries again, on another instance. A connection whose request has begun is left alone: the
 * request finishes, and a further one is refused (see `installShutdownRefusal`); Node's server
 * then keeps it open until its client closes it or its keep-alive timeout runs out. Install it
 * after `installShutdownRefusal`.
 */
export function installUnusedConnectionClosing(app: FastifyInstance): void {
  const unused = new Set<Socket>();
  let closing = false;
  app.server.on('connection', (socket: Socket) => {
    if (closing) {
      socket.destroy();
      return;
    }
    unused.add(socket);
    socket.once('close', () => unused.delete(socket));
  });
  // Emitted once a request's headers are in: from then on the connection carries a request.
  app.server.on('request', (request: { socket: Socket }) => {
    unused.delete(request.socket);
  });
  app.addHook('preClose', async () => {
    closing = true;
    for (const socket of unused) socket.destroy();
    unused.clear();
  });
}

import type { FastifyInstance } from 'fastify';

/** A request held in a route until the test lets it go (see {@link addHeldRoute}). */
export interface HeldRoute {
  /** Resolves once a request has reached the route. */
  entered: Promise<void>;
  /** Lets the held request answer `{ finished: true }`. */
  release(): void;
}

/**
 * Adds `GET /test/hold` to `app`, whose requests wait in the route until `release()`: a request
 * running while the test does something else, such as closing the server.
 */
export function addHeldRoute(app: FastifyInstance): HeldRoute {
  let enter: () => void = () => {};
  const entered = new Promise<void>((resolve) => {
    enter = resolve;
  });
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  app.get('/test/hold', async () => {
    enter();
    await gate;
    return { finished: true };
  });
  return { entered, release };
}

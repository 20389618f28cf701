import { afterEach, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../test/support/database.js';
import { addHeldRoute } from '../../test/support/held-route.js';
import { openRawConnection, type RawConnection } from '../../test/support/raw-http.js';
import { buildServer } from '../build-server.js';

describe('requests during shutdown', () => {
  const database = useTestDatabase();
  let connection: RawConnection | undefined;
  afterEach(() => connection?.socket.destroy());

  it('answers a request that reaches a closing server 503 problem+json with X-Request-Id, Retry-After and Connection: close, and lets running requests finish', async () => {
    const app = buildServer({ database: database(), logger: false });
    const { entered: running, release } = addHeldRoute(app);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    connection = await openRawConnection(port);
    connection.write('GET /test/hold HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await running;
    // The server begins to close while a request runs on a keep-alive connection, which then
    // carries another request.
    const closing = app.close();
    while (app.server.listening) await new Promise((resolve) => setImmediate(resolve));
    connection.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    release();
    const first = await connection.next();
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toEqual({ finished: true });
    const refused = await connection.next();
    expect(refused.status).toBe(503);
    expect(refused.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.headers.connection).toBe('close');
    const problem = JSON.parse(refused.body);
    expect(problem).toMatchObject({
      type: 'urn:followup:problem:unavailable',
      status: 503,
      code: 'unavailable',
    });
    expect(refused.headers['x-request-id']).toBe(problem.requestId);
    await connection.closed;
    await closing;
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../test/support/database.js';
import { openRawConnection, type RawConnection } from '../../test/support/raw-http.js';
import { buildServer } from '../build-server.js';

describe('the Host header', () => {
  const database = useTestDatabase();
  let connection: RawConnection | undefined;
  afterEach(() => connection?.socket.destroy());

  it('answers an HTTP/1.1 request without Host 400 bad_request as problem+json with X-Request-Id, and accepts HTTP/1.0 without it', async () => {
    const app = buildServer({ database: database(), logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { port } = app.server.address() as { port: number };
      connection = await openRawConnection(port);
      connection.write('GET /healthz HTTP/1.1\r\n\r\n');
      const refused = await connection.next();
      expect(refused.status).toBe(400);
      expect(refused.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(refused.headers.connection).toBe('close');
      const problem = JSON.parse(refused.body);
      expect(problem).toMatchObject({ code: 'bad_request', status: 400 });
      expect(refused.headers['x-request-id']).toBe(problem.requestId);
      await connection.closed;

      connection = await openRawConnection(port);
      connection.write('GET /healthz HTTP/1.0\r\n\r\n');
      expect((await connection.next()).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});

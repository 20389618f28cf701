import { afterEach, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../test/support/database.js';
import { openRawConnection, type RawConnection } from '../../test/support/raw-http.js';
import { buildServer } from '../build-server.js';
import { DEFAULT_CONNECTION_LIMITS } from '../connection-limits.js';
import { createAccountStore } from '../tokens/account-store.js';

describe('requests per connection', () => {
  const database = useTestDatabase();
  let connection: RawConnection | undefined;
  afterEach(() => connection?.socket.destroy());

  it('closes a keep-alive connection after 1000 requests by default', () => {
    expect(DEFAULT_CONNECTION_LIMITS.maxRequestsPerConnection).toBe(1000);
  });

  it('says Connection: close on the last request a connection may carry, and runs none pipelined past it', async () => {
    const app = buildServer({
      database: database(),
      logger: false,
      connectionLimits: { maxRequestsPerConnection: 3 },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const accounts = createAccountStore({ database: database() });
      const account = await accounts.createAccount({ name: 'pipeline', role: 'AGENT' });
      const { token } = await accounts.issueToken({ accountId: account.id });
      const { port } = app.server.address() as { port: number };
      connection = await openRawConnection(port);
      const body = JSON.stringify({ firstName: 'Pipe', lastName: 'Lined' });
      const create =
        `POST /api/contacts HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
      // Five creates in one write: three may run, the connection closes after the third.
      connection.write(create.repeat(5));
      const answers = [await connection.next(), await connection.next(), await connection.next()];
      expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201]);
      expect(answers.map((answer) => answer.headers.connection)).toEqual([
        'keep-alive',
        'keep-alive',
        'close',
      ]);
      await connection.closed;
      const { rows } = await database().query<{ count: number }>(
        'SELECT count(*)::int AS count FROM contacts',
      );
      expect(rows[0]?.count).toBe(3);
    } finally {
      await app.close();
    }
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../test/support/database.js';
import { addHeldRoute } from '../../test/support/held-route.js';
import { openRawConnection, type RawConnection } from '../../test/support/raw-http.js';
import { buildServer } from '../build-server.js';

// A connection that never sent a whole request held the server's shutdown until its idle
// timeout (60 s): `app.close()` closes it now, and lets a request already running finish.
describe('connections at shutdown', () => {
  const database = useTestDatabase();
  const connections: RawConnection[] = [];
  afterEach(() => {
    for (const connection of connections.splice(0)) connection.socket.destroy();
  });

  it('closes a silent connection and one halfway through its headers, and lets a running request finish', async () => {
    const app = buildServer({ database: database(), logger: false });
    const { entered: running, release } = addHeldRoute(app);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const silent = await openRawConnection(port);
    const halfway = await openRawConnection(port);
    const busy = await openRawConnection(port);
    connections.push(silent, halfway, busy);
    halfway.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n');
    // Its client closes it after the answer: a keep-alive connection would stay open until its
    // keep-alive timeout (10 s), as Node's server leaves it.
    busy.write('GET /test/hold HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    await running;
    // The server has seen the half request's bytes once it answers a request after them.
    const probe = await openRawConnection(port);
    connections.push(probe);
    probe.write('GET /livez HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    expect((await probe.next()).status).toBe(200);

    const closed = app.close();
    // The connections that carry no request are closed without waiting for close() to end.
    await Promise.all([silent.closed, halfway.closed]);
    release();
    const answer = await busy.next();
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ finished: true });
    await closed;
    await busy.closed;
  });
});

import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { buildServer } from '../src/build-server.js';
import { useTestDatabase } from './support/database.js';

// 500 clients that send their headers or their body a byte at a time must not keep a normal
// client from being answered, and each is cut off once its timeout runs out. The timeouts are
// configured small (about a second) so that the test waits on events, never on long sleeps.

interface SlowClient {
  socket: Socket;
  received: string;
  closed: Promise<void>;
}

function openSlowClient(port: number, first: string): Promise<SlowClient> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const client = { socket, received: '' } as SlowClient;
    client.closed = new Promise((closed) => socket.once('close', () => closed()));
    socket.on('data', (chunk) => {
      client.received += chunk.toString('latin1');
    });
    socket.on('error', () => {});
    socket.once('connect', () => {
      socket.write(first);
      resolve(client);
    });
    socket.once('error', reject);
  });
}

describe('slow clients', () => {
  const database = useTestDatabase();
  const opened: Socket[] = [];
  afterAll(() => {
    for (const socket of opened) socket.destroy();
  });

  it('cannot keep a normal client from its answers, and are cut off after their timeouts', async () => {
    const app = buildServer({
      database: database(),
      logger: false,
      connectionLimits: {
        headersTimeoutMs: 4000,
        requestTimeoutMs: 5000,
        idleTimeoutMs: 10_000,
        checkIntervalMs: 50,
      },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as { port: number }).port;
    const drip = setInterval(() => {
      for (const client of slowHeaders) if (!client.socket.destroyed) client.socket.write('a');
      for (const client of slowBodies) if (!client.socket.destroyed) client.socket.write('{');
    }, 100);
    const slowHeaders: SlowClient[] = [];
    const slowBodies: SlowClient[] = [];
    try {
      // All at once, so that they are open together well within their timeouts.
      const [headers, bodies] = await Promise.all([
        Promise.all(
          Array.from({ length: 250 }, () =>
            openSlowClient(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: '),
          ),
        ),
        Promise.all(
          Array.from({ length: 250 }, () =>
            openSlowClient(
              port,
              'POST /api/inbox/webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
                'Content-Length: 100000\r\n\r\n',
            ),
          ),
        ),
      ]);
      slowHeaders.push(...headers);
      slowBodies.push(...bodies);
      opened.push(...[...slowHeaders, ...slowBodies].map((client) => client.socket));
      expect(slowHeaders.every((client) => !client.socket.destroyed)).toBe(true);

      // A normal client, meanwhile: answered, each time well within a second.
      const durations: number[] = [];
      for (let index = 0; index < 5; index++) {
        const started = performance.now();
        const response = await fetch(`http://127.0.0.1:${port}/healthz`, {
          signal: AbortSignal.timeout(10_000),
        });
        expect(response.status).toBe(200);
        await response.arrayBuffer();
        durations.push(performance.now() - started);
      }
      durations.sort((a, b) => a - b);
      expect(durations[2]).toBeLessThan(1000);

      // Every slow client is cut off: slow headers and slow bodies alike, with a 408 problem.
      await Promise.all([...slowHeaders, ...slowBodies].map((client) => client.closed));
      const cutOff = slowBodies.filter((client) => client.received.startsWith('HTTP/1.1 408'));
      expect(cutOff.length).toBeGreaterThan(200);
      expect(cutOff[0]?.received).toContain('"code":"request_timeout"');
      expect(cutOff[0]?.received.toLowerCase()).toContain('x-request-id: req_');
    } finally {
      clearInterval(drip);
      await app.close();
    }
  }, 60_000);

  it('caps the connections open at once', async () => {
    const app = buildServer({
      database: database(),
      logger: false,
      connectionLimits: { maxConnections: 5 },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as { port: number }).port;
    try {
      const held: SlowClient[] = [];
      for (let index = 0; index < 5; index++) {
        held.push(await openSlowClient(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n'));
      }
      opened.push(...held.map((client) => client.socket));
      // The sixth is closed by the server without an answer.
      const extra = await openSlowClient(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      await extra.closed;
      expect(extra.received).toBe('');
      // Once one is done, a new client gets through.
      held[0]?.socket.end('\r\n');
      await held[0]?.closed;
      for (const client of held.slice(1)) client.socket.destroy();
      await Promise.all(held.map((client) => client.closed));
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(response.status).toBe(200);
    } finally {
      await app.close();
    }
  });
});

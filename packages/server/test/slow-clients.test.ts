import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { buildServer } from '../src/build-server.js';
import type { ConnectionLimits } from '../src/connection-limits.js';
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

interface SlowSwarm {
  /** Clients that send their header lines a byte at a time and never end them. */
  headers: SlowClient[];
  /** Clients that sent whole headers and now send a 100,000-byte body a byte at a time. */
  bodies: SlowClient[];
  /** Both kinds. */
  all: SlowClient[];
  stop(): void;
}

/** Opens 250 slow-header and 250 slow-body clients at once, each dripping a byte every 100 ms. */
async function openSlowSwarm(port: number): Promise<SlowSwarm> {
  const headers: SlowClient[] = [];
  const bodies: SlowClient[] = [];
  const drip = setInterval(() => {
    for (const client of headers) if (!client.socket.destroyed) client.socket.write('a');
    for (const client of bodies) if (!client.socket.destroyed) client.socket.write('{');
  }, 100);
  const [openedHeaders, openedBodies] = await Promise.all([
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
  headers.push(...openedHeaders);
  bodies.push(...openedBodies);
  return { headers, bodies, all: [...headers, ...bodies], stop: () => clearInterval(drip) };
}

describe('slow clients', () => {
  const database = useTestDatabase();
  const opened: Socket[] = [];
  afterAll(() => {
    for (const socket of opened) socket.destroy();
  });

  /** The server with these connection limits, listening on a loopback port. */
  async function listening(connectionLimits: Partial<ConnectionLimits>) {
    const app = buildServer({ database: database(), logger: false, connectionLimits });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { app, port: (app.server.address() as { port: number }).port };
  }

  it('cannot keep a normal client from its answers', async () => {
    // Timeouts far longer than the test, so the only way the normal client is answered while
    // the slow ones are still connected is that the server does not wait for them: the test
    // asserts that order of events, not a duration.
    const { app, port } = await listening({
      headersTimeoutMs: 300_000,
      requestTimeoutMs: 600_000,
      idleTimeoutMs: 600_000,
    });
    const swarm = await openSlowSwarm(port);
    const slow = swarm.all;
    opened.push(...slow.map((client) => client.socket));
    try {
      for (let index = 0; index < 5; index++) {
        const response = await fetch(`http://127.0.0.1:${port}/healthz`);
        expect(response.status).toBe(200);
        await response.arrayBuffer();
        // Answered while every slow client is still connected and still unanswered.
        expect(slow.filter((client) => client.socket.destroyed || client.received !== '')).toEqual(
          [],
        );
      }
    } finally {
      swarm.stop();
      for (const client of slow) client.socket.destroy();
      await app.close();
    }
  });

  it('cuts slow headers and slow bodies off after their timeouts, a slow body with a 408 problem', async () => {
    // Small timeouts (about a second), so that the test waits on the closes, never on sleeps.
    const { app, port } = await listening({
      headersTimeoutMs: 1000,
      requestTimeoutMs: 1500,
      idleTimeoutMs: 10_000,
      checkIntervalMs: 50,
    });
    const swarm = await openSlowSwarm(port);
    opened.push(...swarm.all.map((client) => client.socket));
    try {
      // Every slow client is closed by the server (nothing here closes them).
      await Promise.all(swarm.all.map((client) => client.closed));
      const cutOff = swarm.bodies.filter((client) => client.received.startsWith('HTTP/1.1 408'));
      expect(cutOff.length).toBeGreaterThan(200);
      expect(cutOff[0]?.received).toContain('"code":"request_timeout"');
      expect(cutOff[0]?.received.toLowerCase()).toContain('x-request-id: req_');
    } finally {
      swarm.stop();
      await app.close();
    }
  });

  it('caps the connections open at once', async () => {
    const { app, port } = await listening({ maxConnections: 5 });
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

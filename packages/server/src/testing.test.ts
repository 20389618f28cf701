import { once } from 'node:events';
import { createServer } from 'node:http';
import { PermissionDeniedError } from '@followup/sdk';
import { verifySignature } from '@followup/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDriver } from '../test/support/database.js';
import { startTestServer, type TestServer } from './testing.js';

// startTestServer always runs on in-memory PGlite: once is enough.
describe.skipIf(testDriver !== 'pglite')('startTestServer', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('serves the real routes to an ADMIN client on a loopback port', async () => {
    expect(server.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const contact = await server.client.contacts.create({ firstName: 'Ada', lastName: 'Lovelace' });
    await expect(server.client.contacts.get(contact.id)).resolves.toMatchObject({
      firstName: 'Ada',
    });
    const health = await fetch(`${server.baseUrl}/healthz`);
    expect(health.status).toBe(200);
  });

  it('issues tokens whose role gives the capabilities of the matrix', async () => {
    const { FollowUp } = await import('@followup/sdk');
    const readonly = new FollowUp({
      token: await server.issueToken('READONLY'),
      baseUrl: server.baseUrl,
      maxRetries: 0,
    });
    await expect(readonly.contacts.count()).resolves.toBeTypeOf('number');
    await expect(
      readonly.contacts.create({ firstName: 'No', lastName: 'Write' }),
    ).rejects.toSatisfy((error) => PermissionDeniedError.isInstance(error));
  });

  it('delivers signed webhooks to an endpoint on a loopback address', async () => {
    const received: Array<{ body: string; signature: string }> = [];
    const subscriber = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      received.push({
        body: Buffer.concat(chunks).toString('utf8'),
        signature: String(request.headers['x-service-signature']),
      });
      response.writeHead(204).end();
    }).listen(0, '127.0.0.1');
    await once(subscriber, 'listening');
    try {
      const address = subscriber.address() as { port: number };
      const endpoint = await server.addEndpoint({
        url: `http://127.0.0.1:${address.port}/hook`,
        events: ['contact.created'],
      });
      const contact = await server.client.contacts.create({
        firstName: 'Grace',
        lastName: 'Hopper',
      });
      const arrived = await new Promise<{ body: string; signature: string }>((resolve) => {
        const look = () => {
          const match = received.find((item) => item.body.includes(contact.id));
          if (match) resolve(match);
          else setImmediate(look);
        };
        look();
      });
      expect(() =>
        verifySignature(arrived.body, arrived.signature, { secret: endpoint.secret }),
      ).not.toThrow();
      expect(JSON.parse(arrived.body)).toMatchObject({
        event: 'contact.created',
        data: { id: contact.id },
      });
    } finally {
      subscriber.closeAllConnections();
      subscriber.close();
    }
  });
});

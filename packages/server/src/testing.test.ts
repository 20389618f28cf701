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

  it('addEndpoint() with no argument records every delivery, verified, until close', async () => {
    const endpoint = await server.addEndpoint();
    expect(endpoint.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    const contact = await server.client.contacts.create({ firstName: 'Alan', lastName: 'Turing' });
    let delivery = await endpoint.nextDelivery();
    // Other tests' endpoints and events share this server: skip to this contact's delivery.
    while (!delivery.body.includes(contact.id)) delivery = await endpoint.nextDelivery();
    expect(delivery.event.event).toBe('contact.created');
    if (delivery.event.event !== 'contact.created') return;
    expect(delivery.event.data.id).toBe(contact.id);
    expect(delivery.id).toBe(delivery.headers['x-service-delivery']);
    expect(() =>
      verifySignature(delivery.body, delivery.headers['x-service-signature'] as string, {
        secret: endpoint.secret,
      }),
    ).not.toThrow();
    await server.client.contacts.delete(contact.id);
    let deleted = await endpoint.nextDelivery();
    while (deleted.event.event !== 'contact.deleted') deleted = await endpoint.nextDelivery();
    expect(endpoint.deliveries).toContain(delivery);
    expect(endpoint.deliveries).toContain(deleted);
  });

  it('addEndpoint({ events }) without a url records only those kinds', async () => {
    const endpoint = await server.addEndpoint({ events: ['deal.created'] });
    const contact = await server.client.contacts.create({ firstName: 'Kurt', lastName: 'Godel' });
    const deal = await server.client.deals.create({
      contactId: contact.id,
      title: 'Incompleteness',
      amountCents: 100,
      currency: 'EUR',
    });
    const delivery = await endpoint.nextDelivery();
    expect(delivery.event.event).toBe('deal.created');
    expect(delivery.event.data.id).toBe(deal.id);
    expect(endpoint.deliveries.map((each) => String(each.event.event))).toEqual(['deal.created']);
  });
});

describe.skipIf(testDriver !== 'pglite')('startTestServer close', () => {
  it('closes the recording endpoints: a waiting nextDelivery() rejects, the port refuses', async () => {
    const server = await startTestServer();
    const endpoint = await server.addEndpoint();
    const waiting = endpoint.nextDelivery();
    await server.close();
    await expect(waiting).rejects.toThrow(/closed/);
    await expect(fetch(endpoint.url, { method: 'POST', body: '{}' })).rejects.toThrow();
  });

  it('answers 400 to a delivery whose signature does not verify, and nextDelivery() rejects', async () => {
    const server = await startTestServer();
    try {
      const endpoint = await server.addEndpoint();
      const forged = await fetch(endpoint.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-signature': 't=1,v1=00' },
        body: '{"id":"dlv_x","event":"contact.created","createdAt":"2026-01-01T00:00:00.000Z","data":{}}',
      });
      expect(forged.status).toBe(400);
      await expect(endpoint.nextDelivery()).rejects.toThrow(/refused a delivery/);
      expect(endpoint.deliveries).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describe.skipIf(testDriver !== 'pglite')('startTestServer, called again', () => {
  it('starts each server on an empty, migrated database of its own', async () => {
    const first = await startTestServer();
    const second = await startTestServer();
    try {
      await first.client.contacts.create({ firstName: 'Ada', lastName: 'Lovelace' });
      await second.client.contacts.create({ firstName: 'Grace', lastName: 'Hopper' });
      const third = await startTestServer();
      try {
        const names = async (server: TestServer) =>
          (await server.client.contacts.list()).items.map((contact) => contact.firstName);
        expect(await names(first)).toEqual(['Ada']);
        expect(await names(second)).toEqual(['Grace']);
        expect(await names(third)).toEqual([]);
        // The service account each server made for its client is its own too.
        const accounts = await third.database.query<{ count: number }>(
          'SELECT count(*)::int AS count FROM service_accounts',
        );
        expect(accounts.rows[0]?.count).toBe(1);
      } finally {
        await third.close();
      }
    } finally {
      await second.close();
      await first.close();
    }
  });
});

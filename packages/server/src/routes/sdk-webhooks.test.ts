import { once } from 'node:events';
import { createServer } from 'node:http';
import {
  APIError,
  FollowUp,
  NotFoundError,
  PermissionDeniedError,
  ValidationError,
  type WebhookEvent,
  type WebhookHandler,
} from '@followup/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDriver } from '../../test/support/database.js';
import { startSubscriber } from '../../test/support/subscriber.js';
import { startTestServer, type TestServer } from '../testing.js';

// The SDK's webhook endpoints and deliveries against the real routes, end to end.
// startTestServer runs on in-memory PGlite: once.
describe.skipIf(testDriver !== 'pglite')('the SDK on webhook endpoints and deliveries', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('creates, reads, pages, changes, rotates and deletes endpoints', async () => {
    const { client } = server;
    const created = await client.webhookEndpoints.create({
      url: 'https://hooks.example.invalid/a',
      events: ['contact.created'],
      subscriber: 'acme',
      headers: { 'X-Tenant': 'north' },
      rateLimit: 10,
    });
    expect(created.secret).toMatch(/^whsec_/);
    const read = await client.webhookEndpoints.get(created.id);
    expect(read).not.toHaveProperty('secret');
    expect(read).toMatchObject({ subscriber: 'acme', headers: { 'X-Tenant': 'north' } });

    const more = [];
    for (const n of [1, 2, 3]) {
      more.push(
        await client.webhookEndpoints.create({
          url: `https://hooks.example.invalid/${n}`,
          subscriber: 'acme',
        }),
      );
    }
    const walked: string[] = [];
    for await (const endpoint of client.webhookEndpoints.list({ subscriber: 'acme', limit: 2 })) {
      walked.push(endpoint.id);
    }
    expect(walked).toEqual([created, ...more].map((endpoint) => endpoint.id));

    const disabled = await client.webhookEndpoints.update(created.id, { state: 'disabled' });
    expect(disabled.state).toBe('disabled');
    const { secret } = await client.webhookEndpoints.rotateSecret(created.id);
    expect(secret).not.toBe(created.secret);
    await client.webhookEndpoints.delete(created.id);
    await expect(client.webhookEndpoints.get(created.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses a bad field as ValidationError and a refused URL as a 422 invalid_endpoint_url', async () => {
    const { client } = server;
    const invalid = await client.webhookEndpoints
      .create({ url: 'https://hooks.example.invalid/', timeoutSeconds: 99 })
      .catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ValidationError).body?.errors?.[0]?.path).toBe('timeoutSeconds');
    const refused = await client.webhookEndpoints
      .create({ url: 'ftp://hooks.example.invalid/' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(APIError);
    expect(refused).toMatchObject({ status: 422, code: 'invalid_endpoint_url' });
  });

  it('sends a test event, shows the delivery as it arrived, and retries it', async () => {
    const { client } = server;
    const endpoint = await server.addEndpoint();
    const { deliveryId } = await client.webhookEndpoints.test(endpoint.id);
    const arrived = await endpoint.nextDelivery();
    expect(arrived.id).toBe(deliveryId);

    // Whether the worker recorded the attempt yet or not, the body is the bytes that arrived.
    const delivery = await client.deliveries.get(deliveryId);
    expect(delivery).toMatchObject({ id: deliveryId, event: 'webhook.test' });
    expect(delivery.body).toBe(arrived.body);
    expect(delivery.headers['X-Service-Signature']).toBe('[redacted]');
    expect(delivery.headers['X-Service-Delivery']).toBe(deliveryId);

    const page = await client.deliveries.list({ endpoint: endpoint.id, kind: 'webhook.test' });
    expect(page.items.map((item) => item.id)).toEqual([deliveryId]);
    const none = await client.deliveries.list({ endpoint: endpoint.id, kind: 'contact.created' });
    expect(none.items).toEqual([]);

    const again = await client.deliveries.retry(deliveryId, { force: true });
    expect(again).toMatchObject({ id: deliveryId, state: 'pending' });
    expect((await endpoint.nextDelivery()).body).toBe(arrived.body);
    await expect(client.deliveries.retry('dlv_none')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('replays an event missed while the endpoint was disabled, and reads the replay', async () => {
    const { client } = server;
    const endpoint = await server.addEndpoint();
    const since = new Date(Date.now() - 3_600_000).toISOString();
    await client.webhookEndpoints.update(endpoint.id, { state: 'disabled' });
    const ada = await client.contacts.create({ firstName: 'Ada', lastName: 'Lovelace' });
    await client.webhookEndpoints.update(endpoint.id, { state: 'active' });

    const queued = await client.webhookEndpoints.replay(endpoint.id, {
      since,
      kinds: ['contact.created'],
      states: ['missing'],
    });
    expect(queued).toEqual({ id: expect.stringMatching(/^rpl_/), count: 1 });
    const arrived = await endpoint.nextDelivery();
    expect(arrived.event).toMatchObject({ event: 'contact.created', data: { id: ada.id } });
    const replay = await client.replays.get(queued.id);
    expect(replay).toMatchObject({ id: queued.id, count: 1 });
    expect(['running', 'done']).toContain(replay.state);

    const tooOld = await client.webhookEndpoints
      .replay(endpoint.id, { since: '2020-01-01T00:00:00Z' })
      .catch((error: unknown) => error);
    expect(tooOld).toBeInstanceOf(ValidationError);
    expect((tooOld as ValidationError).body?.errors?.[0]?.path).toBe('since');
    await expect(client.replays.get('rpl_none')).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.webhookEndpoints.replay('we_none', { since })).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it('sends a thin endpoint ids only; the handler with expand: true receives the full event', async () => {
    const { client } = server;
    // A plain subscriber records the bytes a thin endpoint receives.
    const raw = await startSubscriber([{ status: 200 }]);
    // The SDK's handler, expanding each thin event with the client's events.get.
    let handled: (event: WebhookEvent) => void = () => {};
    const received = new Promise<WebhookEvent>((resolve) => {
      handled = resolve;
    });
    const errors: unknown[] = [];
    // Made once the endpoint's secret is known, before any event is written.
    let handler: WebhookHandler | undefined;
    const handlerServer = createServer((request, response) => {
      void handler?.node(request, response);
    });
    handlerServer.listen(0, '127.0.0.1');
    await once(handlerServer, 'listening');
    const { port } = handlerServer.address() as { port: number };
    try {
      const rawEndpoint = await server.addEndpoint({
        url: raw.url,
        events: ['contact.created'],
      });
      const expanding = await server.addEndpoint({
        url: `http://127.0.0.1:${port}/webhooks`,
        events: ['contact.created'],
      });
      handler = client.webhooks.handler({
        secret: expanding.secret,
        expand: true,
        on: { 'contact.created': (event) => handled(event) },
        onError: (error) => errors.push(error),
      });
      for (const endpoint of [rawEndpoint, expanding]) {
        const thin = await client.webhookEndpoints.update(endpoint.id, { payload: 'thin' });
        expect(thin.payload).toBe('thin');
      }
      const grace = await client.contacts.create({
        firstName: 'Grace',
        lastName: 'Hopper',
        email: 'grace@example.org',
      });

      await raw.waitFor(1);
      const [sent] = raw.received;
      const thinBody = JSON.parse(String(sent?.body));
      expect(thinBody).toEqual({
        id: sent?.headers['x-service-delivery'],
        event: 'contact.created',
        createdAt: expect.any(String),
        eventId: expect.stringMatching(/^evt_/),
        data: { id: grace.id, object: 'contact' },
      });
      expect(sent?.body).not.toContain('Grace');
      expect(await client.events.get(thinBody.eventId)).toMatchObject({
        id: thinBody.eventId,
        event: 'contact.created',
        data: { id: grace.id, firstName: 'Grace', email: 'grace@example.org' },
      });

      const event = await received;
      expect(errors).toEqual([]);
      if (event.event !== 'contact.created') throw new Error('expected contact.created');
      expect(event).toMatchObject({
        id: expect.stringMatching(/^dlv_/),
        eventId: thinBody.eventId,
        data: { id: grace.id, firstName: 'Grace', lastName: 'Hopper' },
      });
    } finally {
      await raw.close();
      handlerServer.close();
    }
  });

  it('is PermissionDeniedError for a role without webhooks.manage', async () => {
    const manager = new FollowUp({
      token: await server.issueToken('MANAGER'),
      baseUrl: server.baseUrl,
      allowInsecureHttp: true,
    });
    await expect(manager.webhookEndpoints.list()).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(manager.deliveries.list()).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(manager.replays.get('rpl_1')).rejects.toBeInstanceOf(PermissionDeniedError);
  });
});

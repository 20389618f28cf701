import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { consoleBrowser } from '../../../test/support/console.js';
import { useTestServer } from '../../../test/support/server.js';
import { createDeliveryWorker } from '../../delivery/delivery-worker.js';
import { createEndpointStore } from '../../delivery/webhook-endpoints.js';
import { createIdGenerator } from '../../ids.js';
import { recordOutboxEvent } from '../../stores/outbox-store.js';

describe('Webhook endpoints pages: the state the server put an endpoint in', () => {
  // Its receivers are on loopback, as a server started with --allow-private-endpoints allows.
  const server = useTestServer({ allowPrivateEndpoints: true });
  const subscribers: Server[] = [];
  afterEach(async () => {
    for (const subscriber of subscribers.splice(0)) {
      subscriber.closeAllConnections();
      await new Promise((resolve) => subscriber.close(resolve));
    }
  });

  // A receiver on loopback that answers every delivery with the status of the moment.
  async function receiver(answer: { status: number }) {
    const subscriber = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(answer.status).end());
    });
    subscribers.push(subscriber);
    subscriber.listen(0, '127.0.0.1');
    await once(subscriber, 'listening');
    return `http://127.0.0.1:${(subscriber.address() as AddressInfo).port}/hooks`;
  }

  it('shows a failing endpoint, then one the server disabled on 410 Gone, in words, and enables it again from its page', async () => {
    const { database, clock } = server();
    const newId = createIdGenerator({ now: () => clock.now() });
    const worker = createDeliveryWorker({
      database,
      clock,
      newId,
      allowPrivate: true,
      retryDelays: [60, 60, 60],
      random: () => 0.5,
    });
    const answer = { status: 503 };
    const browser = await consoleBrowser(server(), 'ADMIN');
    await browser.post('/webhook-endpoints', { url: await receiver(answer) });
    const id = /href="\/webhook-endpoints\/(we_[0-9A-Z]{26})"/.exec(
      (await browser.get('/webhook-endpoints')).body,
    )?.[1] as string;
    expect(id).toBeDefined();
    const detail = await browser.get(`/webhook-endpoints/${id}`);
    expect(detail.statusCode).toBe(200);
    expect(detail.body).toContain('<span class="badge ok">Active</span>');

    const contactCreated = () =>
      recordOutboxEvent(
        database,
        { event: 'contact.created', data: { id: newId('con'), firstName: 'A', lastName: 'B' } },
        { clock, newId },
      );
    await contactCreated();
    await worker.runDue();
    const since = 'failing since 2026-03-01 09:00:00 UTC';
    const failing = await browser.get('/webhook-endpoints');
    expect(failing.body).toContain('<span class="badge warning">Failing</span>');
    expect(failing.body).toContain(since);
    expect((await browser.get(`/webhook-endpoints/${id}`)).body).toContain(
      'Every attempt has failed since 2026-03-01 09:00:00 UTC.',
    );

    answer.status = 410;
    clock.advance(60_000);
    await worker.runDue();
    await worker.close();
    const gone = await browser.get('/webhook-endpoints');
    expect(gone.body).toContain('<span class="badge danger">Disabled by the server</span>');
    expect(gone.body).toContain('answered 410 Gone');
    expect(gone.body).toContain(`aria-label="Enable ${id}"`);
    const page = await browser.get(`/webhook-endpoints/${id}`);
    expect(page.body).toContain('It answered 410 Gone.');
    expect(page.body).toMatch(/<dt>Failing since<\/dt><dd>2026-03-01 09:00:00 UTC<\/dd>/);

    const enabled = await browser.post(`/webhook-endpoints/${id}/enable`, { back: 'detail' });
    expect(enabled.statusCode).toBe(303);
    expect(enabled.headers.location).toBe(`/webhook-endpoints/${id}`);
    const again = await browser.get(`/webhook-endpoints/${id}`);
    expect(again.body).toContain('<span class="badge ok">Active</span>');
    expect(again.body).toMatch(/<dt>Failing since<\/dt><dd>—<\/dd>/);

    // Disabled by a person: no server reason; the form from the list comes back to the list.
    const disabled = await browser.post(`/webhook-endpoints/${id}/disable`, { back: 'list' });
    expect(disabled.headers.location).toBe('/webhook-endpoints');
    expect((await browser.get(`/webhook-endpoints/${id}`)).body).toContain(
      '<span class="badge off">Disabled</span>',
    );
  });

  it('answers 404 for an endpoint nobody has, and 403 to a role without webhooks.manage', async () => {
    const admin = await consoleBrowser(server(), 'ADMIN');
    expect((await admin.get('/webhook-endpoints/we_missing')).statusCode).toBe(404);
    const manager = await consoleBrowser(server(), 'MANAGER');
    expect((await manager.get('/webhook-endpoints/we_missing')).statusCode).toBe(403);
  });
});

describe('Webhook endpoints pages: Add endpoint', () => {
  const server = useTestServer();

  // One character past the limit: the form cut it to 2,048 and saved a URL nobody typed.
  it('refuses a URL over 2,048 characters on the form, keeping what was typed, and saves nothing', async () => {
    const browser = await consoleBrowser(server(), 'ADMIN');
    const form = await browser.get('/webhook-endpoints/new');
    // No maxlength: a browser cuts a pasted value to it, silently.
    expect(/<input id="url"[^>]*>/.exec(form.body)?.[0]).not.toContain('maxlength');
    const base = 'https://hooks.example.com/followup?token=';
    for (const url of [
      `${base}${'a'.repeat(2_049 - base.length)}`,
      `${base}${'b'.repeat(9_000)}`,
    ]) {
      const refused = await browser.post('/webhook-endpoints', {
        url,
        events: ['contact.created', 'deal.created'],
      });
      expect(refused.statusCode).toBe(400);
      expect(refused.body).toContain('The endpoint URL must be at most 2,048 characters');
      expect(refused.body).toContain(`value="${url}"`);
      expect(refused.body).toMatch(/<input[^>]*value="contact\.created" checked/);
      expect(refused.body).toMatch(/<input[^>]*value="deal\.created" checked/);
      expect(refused.body).not.toMatch(/<input[^>]*value="contact\.deleted" checked/);
      const { rows } = await server().database.query('SELECT url FROM webhook_endpoints');
      expect(rows).toEqual([]);
    }
    // At the limit it is saved whole.
    const longest = `${base}${'c'.repeat(2_048 - base.length)}`;
    expect((await browser.post('/webhook-endpoints', { url: longest })).statusCode).toBe(303);
    const { rows } = await server().database.query<{ url: string }>(
      'SELECT url FROM webhook_endpoints',
    );
    expect(rows).toEqual([{ url: longest }]);
  });
});

describe('Webhook endpoints pages of a server that refuses private endpoints (the default)', () => {
  const server = useTestServer();

  it('refuses a loopback or private address with the form and why, as the API does', async () => {
    const admin = await consoleBrowser(server(), 'ADMIN');
    for (const url of ['http://127.0.0.1:8080/hooks', 'http://[::ffff:a00:1]/hooks']) {
      const refused = await admin.post('/webhook-endpoints', { url });
      expect(refused.statusCode).toBe(400);
      expect(refused.body).toContain('--allow-private-endpoints');
    }
    const { rows } = await server().database.query('SELECT id FROM webhook_endpoints');
    expect(rows).toEqual([]);
  });
});

describe('Webhook endpoints pages: Disable and Enable wake the worker', () => {
  // Each writes an endpoint.* event: the worker hears of it at once, as after the API's.
  let wakes = 0;
  const server = useTestServer({
    onOutboxEvent: () => {
      wakes += 1;
    },
  });

  it('wakes the delivery worker after each change of state, and not after a repeat', async () => {
    const admin = await consoleBrowser(server(), 'ADMIN');
    const { database, clock } = server();
    const endpoint = await createEndpointStore({
      database,
      clock,
      newId: createIdGenerator({ now: () => clock.now() }),
    }).add({ url: 'https://hooks.acme.example/in' });
    wakes = 0;
    const disabled = await admin.post(`/webhook-endpoints/${endpoint.id}/disable`, {
      back: 'list',
    });
    expect(disabled.statusCode).toBe(303);
    expect(wakes).toBe(1);
    // Disabled already: nothing changes, no event, no wake-up.
    await admin.post(`/webhook-endpoints/${endpoint.id}/disable`, { back: 'list' });
    expect(wakes).toBe(1);
    const enabled = await admin.post(`/webhook-endpoints/${endpoint.id}/enable`, { back: 'list' });
    expect(enabled.statusCode).toBe(303);
    expect(wakes).toBe(2);
  });
});

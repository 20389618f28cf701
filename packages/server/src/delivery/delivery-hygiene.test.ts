import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { createIdGenerator } from '../ids.js';
import { recordOutboxEvent } from '../stores/outbox-store.js';
import { createDeliveryStore } from './deliveries.js';
import { createDeliveryWorker } from './delivery-worker.js';
import type { DeliveryWorkerOptions } from './delivery-worker-options.js';
import { createEndpointStore } from './webhook-endpoints.js';

type Answer = (request: IncomingMessage, response: ServerResponse) => void;

describe('delivery hygiene', () => {
  const database = useTestDatabase();
  const clock = manualClock();
  const newId = createIdGenerator({ now: () => clock.now() });
  const servers: Server[] = [];
  const closers: (() => Promise<void>)[] = [];

  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    clock.set('2026-03-01T09:00:00.000Z');
  });

  // A subscriber on loopback that answers every request with `answer`, and counts the requests
  // it holds at the same time.
  async function subscriber(answer: Answer) {
    const stats = { received: 0, open: 0, mostOpen: 0 };
    const server = createServer((request, response) => {
      stats.received += 1;
      stats.open += 1;
      stats.mostOpen = Math.max(stats.mostOpen, stats.open);
      response.on('close', () => {
        stats.open -= 1;
      });
      request.resume();
      request.on('end', () => answer(request, response));
    });
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}/hooks`, stats };
  }

  function worker(options: Partial<DeliveryWorkerOptions> = {}) {
    const created = createDeliveryWorker({
      database: database(),
      clock,
      newId,
      allowPrivate: true,
      retryDelays: [60, 60, 60],
      // A guard against a hung test, far above any attempt here even on a loaded machine.
      attemptTimeoutMs: 60_000,
      random: () => 0.5,
      ...options,
    });
    closers.push(() => created.close());
    return created;
  }

  const endpoints = () => createEndpointStore({ database: database(), clock, newId });
  const deliveries = () => createDeliveryStore({ database: database(), clock, newId });

  async function contactCreated() {
    return recordOutboxEvent(
      database(),
      { event: 'contact.created', data: { id: newId('con'), firstName: 'Ada', lastName: 'L' } },
      { clock, newId },
    );
  }

  async function systemDisables() {
    const { rows } = await database().query<{
      actor_type: string;
      target_id: string;
      metadata: Record<string, unknown>;
    }>(
      `SELECT actor_type, target_id, metadata FROM audit_entries
        WHERE action = 'endpoint.disabled' ORDER BY seq`,
    );
    return rows;
  }

  it('keeps the first 4 KiB of each answer with its attempt', async () => {
    const hook = await subscriber((_request, response) => {
      response.writeHead(500, { 'content-type': 'text/plain' }).end(`${'é'.repeat(2100)}tail`);
    });
    await endpoints().add({ url: hook.url });
    await contactCreated();
    await worker().runDue();
    const [delivery] = await deliveries().list();
    const attempts = await deliveries().attempts(delivery?.id as string);
    expect(attempts).toMatchObject([{ status: 500, error: null }]);
    const body = attempts[0]?.responseBody as string;
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(4 * 1024 + 2);
    expect(body.startsWith('éééé')).toBe(true);
    expect(body).not.toContain('tail');
  });

  it("honours a 429's Retry-After beyond the schedule's wait, capped at 6 hours", async () => {
    let retryAfter = '600';
    const hook = await subscriber((_request, response) => {
      response.writeHead(429, { 'retry-after': retryAfter }).end();
    });
    await endpoints().add({ url: hook.url });
    await contactCreated();
    const running = worker();
    await running.runDue();
    let [delivery] = await deliveries().list();
    // The schedule says 60 s; the subscriber asked for 10 minutes.
    expect(Date.parse(delivery?.nextAttemptAt as string) - clock.now()).toBe(600_000);
    clock.advance(600_000);
    retryAfter = '86400';
    await running.runDue();
    [delivery] = await deliveries().list();
    expect(delivery?.attempts).toBe(2);
    expect(Date.parse(delivery?.nextAttemptAt as string) - clock.now()).toBe(6 * 3_600_000);
  });

  it('disables an endpoint that answers 410 Gone at once, audited, and shows why', async () => {
    const hook = await subscriber((_request, response) => response.writeHead(410).end());
    const endpoint = await endpoints().add({ url: hook.url });
    await contactCreated();
    await worker().runDue();
    expect(hook.stats.received).toBe(1);
    const [listed] = await endpoints().list();
    expect(listed).toMatchObject({ id: endpoint.id, state: 'disabled', disabledReason: 'gone' });
    expect(await systemDisables()).toEqual([
      {
        actor_type: 'system',
        target_id: endpoint.id,
        metadata: expect.objectContaining({ reason: 'gone', status: 410 }),
      },
    ]);
    // Enabled again by a person: the server's reason and the failures are forgotten.
    expect(await endpoints().enable(endpoint.id)).toMatchObject({
      state: 'active',
      disabledReason: null,
      failingSince: null,
    });
  });

  it('disables an endpoint whose every attempt failed for the auto-disable period', async () => {
    let status = 503;
    const hook = await subscriber((_request, response) => response.writeHead(status).end());
    const endpoint = await endpoints().add({ url: hook.url });
    const running = worker({ retryDelays: [86_400, 86_400, 86_400, 86_400, 86_400, 86_400] });
    await contactCreated();
    await running.runDue();
    const failingSince = new Date(clock.now()).toISOString();
    expect((await endpoints().list())[0]).toMatchObject({ state: 'active', failingSince });
    // A success ends the run: the next failure starts a new one.
    clock.advance(86_400_000);
    status = 200;
    await running.runDue();
    expect((await endpoints().list())[0]).toMatchObject({ failingSince: null });
    status = 503;
    await contactCreated();
    await running.runDue();
    for (let day = 0; day < 4; day += 1) {
      clock.advance(86_400_000);
      await running.runDue();
      expect((await endpoints().list())[0]?.state).toBe('active');
    }
    clock.advance(86_400_000);
    await running.runDue();
    expect((await endpoints().list())[0]).toMatchObject({
      state: 'disabled',
      disabledReason: 'failing',
    });
    expect(await systemDisables()).toMatchObject([
      { actor_type: 'system', target_id: endpoint.id, metadata: { reason: 'failing' } },
    ]);
  });

  it('keeps at most the per-endpoint limit of attempts in flight to one endpoint', async () => {
    // The slow subscriber holds every request until two are open at once (or the last one has
    // come), then holds them a little longer, so that a third would arrive while they are open
    // if the limit let it: the two in flight do not depend on how fast this machine is.
    const held: ServerResponse[] = [];
    const slow = await subscriber((_request, response) => {
      held.push(response);
      if (held.length >= 2 || slow.stats.received === 8) {
        const answering = held.splice(0);
        setTimeout(() => {
          for (const each of answering) each.writeHead(200).end();
        }, 50);
      }
    });
    const other = await subscriber((_request, response) => response.writeHead(200).end());
    await endpoints().add({ url: slow.url });
    await endpoints().add({ url: other.url });
    for (let index = 0; index < 8; index += 1) await contactCreated();
    await worker({ endpointConcurrency: 2, concurrency: 32 }).runDue();
    expect(slow.stats.received).toBe(8);
    expect(slow.stats.mostOpen).toBe(2);
    expect(other.stats.received).toBe(8);
    expect((await deliveries().list({ state: 'delivered' })).length).toBe(16);
  });
});

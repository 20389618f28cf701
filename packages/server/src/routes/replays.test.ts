import { queuedReplaySchema, REPLAY_LIMITS, replaySchema } from '@followup/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/support/server.js';
import { type Subscriber, startSubscriber } from '../../test/support/subscriber.js';
import { createDeliveryWorker } from '../delivery/delivery-worker.js';
import { fanOutEvents } from '../delivery/fan-out.js';
import { createEndpointStore } from '../delivery/webhook-endpoints.js';
import { createIdGenerator } from '../ids.js';
import { recordOutboxEvent } from '../stores/outbox-store.js';
import type { Role } from '../tokens/role.js';

describe('the webhook replay API', () => {
  const server = useTestServer();
  const subscribers: Subscriber[] = [];
  afterEach(async () => {
    for (const subscriber of subscribers.splice(0)) await subscriber.close();
  });

  async function call(
    method: 'GET' | 'POST',
    url: string,
    payload?: unknown,
    role: Role = 'ADMIN',
  ) {
    const { token } = await server().tokenFor(role);
    return server().app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
  }

  function dependencies() {
    const { database, clock } = server();
    return { database, clock, newId: createIdGenerator({ now: () => clock.now() }) };
  }

  async function contactCreated(contactId: string) {
    const { database, clock, newId } = dependencies();
    return recordOutboxEvent(
      database,
      { event: 'contact.created', data: { id: contactId, firstName: 'Ada', lastName: 'L' } },
      { clock, newId },
    );
  }

  /** Runs the delivery worker until nothing is due at the clock's time, then stops it. */
  async function deliverDue() {
    const worker = createDeliveryWorker({ ...dependencies(), allowPrivate: true });
    try {
      await worker.runDue();
    } finally {
      await worker.close();
    }
  }

  /** The event ids of the requests the subscriber answered with 2xx, in order. */
  function acceptedEventIds(subscriber: Subscriber, script: number[]) {
    return subscriber.received
      .filter((_, index) => (script[Math.min(index, script.length - 1)] ?? 200) < 300)
      .map((request) => JSON.parse(request.body).eventId as string);
  }

  async function anEndpoint(url = 'https://hooks.example.com/') {
    return createEndpointStore(dependencies()).add({ url });
  }

  it('replays failed and missing events once each, as new deliveries, and reports progress', async () => {
    const script = [500, 200];
    const subscriber = await startSubscriber(script.map((status) => ({ status })));
    subscribers.push(subscriber);
    const { clock } = server();
    // Written before the endpoint existed: never delivered to it (missing).
    const before = await contactCreated('con_before');
    clock.advance(60_000);
    const endpoint = await anEndpoint(subscriber.url);
    clock.advance(60_000);
    const failing = await contactCreated('con_failing');
    await deliverDue(); // answered 500: pending, retried later (failed)
    const delivered = await contactCreated('con_delivered');
    await deliverDue(); // answered 200: delivered
    expect(acceptedEventIds(subscriber, script)).toEqual([delivered.id]);

    const response = await call('POST', `/api/webhook-endpoints/${endpoint.id}/replay`, {
      since: '2026-03-01T08:00:00Z',
    });
    expect(response.statusCode, response.body).toBe(202);
    const queued = queuedReplaySchema.parse(response.json());
    expect(queued).toEqual({ id: expect.stringMatching(/^rpl_/), count: 2 });
    const running = await call('GET', `/api/replays/${queued.id}`);
    expect(running.statusCode).toBe(200);
    expect(running.json()).toEqual({ id: queued.id, state: 'running', count: 2, sent: 0 });

    await deliverDue();
    // The failed delivery's own retries would come within days: none arrives.
    for (let day = 0; day < 4; day += 1) {
      clock.advance(86_400_000);
      await deliverDue();
    }
    const accepted = acceptedEventIds(subscriber, script);
    expect(accepted.slice(1).sort()).toEqual([before.id, failing.id].sort());
    expect(accepted).toHaveLength(3);
    const done = await call('GET', `/api/replays/${queued.id}`);
    expect(replaySchema.parse(done.json())).toEqual({
      id: queued.id,
      state: 'done',
      count: 2,
      sent: 2,
    });
    // Each replayed event went as a new delivery, its own id in the body.
    const replayedBodies = subscriber.received.slice(2).map((request) => JSON.parse(request.body));
    const { rows } = await server().database.query<{ id: string; replay_id: string | null }>(
      'SELECT id, replay_id FROM deliveries WHERE replay_id IS NOT NULL ORDER BY id',
    );
    expect(rows.map((row) => row.id).sort()).toEqual(replayedBodies.map((body) => body.id).sort());
    const audit = await server().database.query<{ action: string; metadata: unknown }>(
      "SELECT action, metadata FROM audit_entries WHERE action = 'endpoint.replayed'",
    );
    expect(audit.rows).toEqual([
      {
        action: 'endpoint.replayed',
        metadata: expect.objectContaining({ replayId: queued.id, count: 2 }),
      },
    ]);
  });

  it('replays only the states and kinds asked for, never an event on its way', async () => {
    const { clock } = server();
    const endpoint = await anEndpoint();
    clock.advance(60_000);
    // Pending with no attempt yet: on its way, never replayed.
    await contactCreated('con_pending');
    const deliveredOne = await contactCreated('con_delivered');
    const { database, newId } = dependencies();
    await recordOutboxEvent(
      database,
      { event: 'deal.created', data: { id: 'deal_1', name: 'Renewal' } },
      { clock, newId },
    );
    // The fan-out makes the deliveries, and none is sent.
    await fanOutEvents(database, { clock, newId });
    await server().database.query(
      "UPDATE deliveries SET state = 'delivered', next_attempt_at = NULL WHERE event_id = $1",
      [deliveredOne.id],
    );
    const onlyDelivered = await call('POST', `/api/webhook-endpoints/${endpoint.id}/replay`, {
      since: '2026-03-01T08:00:00Z',
      states: ['delivered'],
    });
    expect(onlyDelivered.json()).toMatchObject({ count: 1 });
    const defaults = await call('POST', `/api/webhook-endpoints/${endpoint.id}/replay`, {
      since: '2026-03-01T08:00:00Z',
      kinds: ['deal.created'],
    });
    // The deal's delivery is pending without an attempt: on its way.
    expect(defaults.json()).toMatchObject({ count: 0 });
    const empty = await call('GET', `/api/replays/${defaults.json().id}`);
    expect(empty.json()).toMatchObject({ state: 'done', count: 0, sent: 0 });
  });

  it.each([
    [{}, 'since'],
    [{ since: 'yesterday' }, 'since'],
    [{ since: '2026-01-01T00:00:00Z' }, 'since'],
    [{ since: '2026-03-01T08:00:00Z', until: '2026-03-01T07:00:00Z' }, 'until'],
    [{ since: '2026-03-01T08:00:00Z', until: '2026-03-01T08:00:00Z' }, 'until'],
    [{ since: '2026-03-01T08:00:00Z', kinds: ['contact.shredded'] }, 'kinds.0'],
    [{ since: '2026-03-01T08:00:00Z', kinds: [] }, 'kinds'],
    [{ since: '2026-03-01T08:00:00Z', states: ['pending'] }, 'states.0'],
    [{ since: '2026-03-01T08:00:00Z', window: 'all' }, 'window'],
  ])('answers 400 validation_failed naming the field for %j', async (body, field) => {
    const endpoint = await anEndpoint();
    const response = await call('POST', `/api/webhook-endpoints/${endpoint.id}/replay`, body);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(response.json().code).toBe('validation_failed');
    expect(response.json().errors.map((error: { path: string }) => error.path)).toContain(field);
    const { rows } = await server().database.query('SELECT id FROM webhook_replays');
    expect(rows).toEqual([]);
  });

  it(`refuses a window of more than ${REPLAY_LIMITS.maxEvents} events, naming until`, async () => {
    const endpoint = await anEndpoint();
    server().clock.advance(60_000);
    await server().database.query(
      `INSERT INTO outbox_events (id, event, data, created_at, dispatched_at)
       SELECT 'evt_' || n, 'contact.created', '{}', $1, $1 FROM generate_series(1, $2) AS n`,
      [new Date(server().clock.now()), REPLAY_LIMITS.maxEvents + 1],
    );
    const response = await call('POST', `/api/webhook-endpoints/${endpoint.id}/replay`, {
      since: '2026-03-01T08:00:00Z',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'validation_failed',
      errors: [{ path: 'until', message: expect.stringContaining('10000') }],
    });
    const { rows } = await server().database.query('SELECT count(*)::int AS n FROM deliveries');
    expect(rows).toEqual([{ n: 0 }]);
  });

  it('answers 404 for an unknown endpoint or replay, 409 for a disabled endpoint', async () => {
    const unknown = await call('POST', '/api/webhook-endpoints/we_nope/replay', {
      since: '2026-03-01T08:00:00Z',
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('not_found');
    const replay = await call('GET', '/api/replays/rpl_nope');
    expect(replay.statusCode).toBe(404);
    expect(replay.headers['content-type']).toContain('application/problem+json');
    const endpoint = await anEndpoint();
    await createEndpointStore(dependencies()).update(endpoint.id, { state: 'disabled' });
    const disabled = await call('POST', `/api/webhook-endpoints/${endpoint.id}/replay`, {
      since: '2026-03-01T08:00:00Z',
    });
    expect(disabled.statusCode).toBe(409);
    expect(disabled.json().code).toBe('conflict');
  });

  it('answers 403 without webhooks.manage', async () => {
    const endpoint = await anEndpoint();
    const post = await call(
      'POST',
      `/api/webhook-endpoints/${endpoint.id}/replay`,
      { since: '2026-03-01T08:00:00Z' },
      'MANAGER',
    );
    expect(post.statusCode).toBe(403);
    const get = await call('GET', '/api/replays/rpl_1', undefined, 'MANAGER');
    expect(get.statusCode).toBe(403);
    const { rows } = await server().database.query('SELECT id FROM webhook_replays');
    expect(rows).toEqual([]);
  });
});

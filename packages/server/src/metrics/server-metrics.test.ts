import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { parsePrometheusText, sampleValue } from '../../test/support/prometheus-text.js';
import { type Subscriber, startSubscriber } from '../../test/support/subscriber.js';
import { TEST_PASSWORD, webSessionFor } from '../../test/support/web.js';
import { buildServer } from '../build-server.js';
import { createDeliveryWorker } from '../delivery/delivery-worker.js';
import { createEndpointStore } from '../delivery/webhook-endpoints.js';
import { createIdGenerator } from '../ids.js';
import { createAccountStore } from '../tokens/account-store.js';
import { listenForMetrics, type MetricsListener } from './metrics-listener.js';
import { createServerMetrics } from './server-metrics.js';

const ehrSecret = 'athena-secret-1';
const inboxSecret = 'inbox-secret-1';

// Every metric of issue-level promise: the names and the label names each series carries.
const expectedLabelNames: Record<string, string[]> = {
  followup_http_requests_total: ['method', 'route', 'status'],
  followup_http_request_duration_seconds_count: ['method', 'route'],
  followup_webhook_attempts_total: ['outcome'],
  followup_webhook_delivery_seconds_count: [],
  followup_outbox_pending_events: [],
  followup_outbox_oldest_pending_seconds: [],
  followup_webhook_endpoints: ['state'],
  followup_ehr_receipts_total: ['outcome', 'vendor'],
  followup_inbox_messages_total: [],
  followup_sign_in_attempts_total: ['outcome'],
  followup_database_queued_queries: [],
  process_cpu_seconds_total: [],
  nodejs_eventloop_lag_seconds: [],
};

describe('Prometheus metrics', () => {
  const database = useTestDatabase();
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function scrape(listener: MetricsListener) {
    const response = await fetch(`${listener.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    return parsePrometheusText(await response.text());
  }

  it('serves every metric, with bounded labels, after traffic of each kind', async () => {
    const clock = manualClock('2026-03-01T09:00:00.000Z');
    const newId = createIdGenerator({ now: () => clock.now() });
    const metrics = createServerMetrics({ database: database(), clock });
    const app = buildServer({
      database: database(),
      clock,
      newId,
      logger: false,
      metrics,
      ehrWebhookSecrets: { athenahealth: ehrSecret },
      inboxWebhookSecret: inboxSecret,
      signInThrottle: { perAccount: 1 },
    });
    closers.push(() => app.close());
    await app.ready();
    const listener = await listenForMetrics(metrics, { port: 0 });
    closers.push(() => listener.close());
    expect(listener.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    // Subscribers: one answers 200, one 500, one is gone (its port refuses connections); a
    // fourth endpoint is disabled.
    const subscribers: Subscriber[] = await Promise.all([
      startSubscriber([{ status: 200 }]),
      startSubscriber([{ status: 500 }]),
      startSubscriber(),
    ]);
    for (const subscriber of subscribers) closers.push(() => subscriber.close());
    await subscribers[2]?.stop();
    const endpoints = createEndpointStore({ database: database(), clock, newId });
    for (const subscriber of subscribers) await endpoints.add({ url: subscriber.url });
    const disabled = await endpoints.add({ url: 'https://example.org/hook' });
    await endpoints.disable(disabled.id);

    // API traffic, by token.
    const accounts = createAccountStore({ database: database(), clock, newId });
    const account = await accounts.createAccount({ name: 'metrics', role: 'ADMIN' });
    const { token } = await accounts.issueToken({ accountId: account.id });
    const authorization = `Bearer ${token}`;
    const created = await app.inject({
      method: 'POST',
      url: '/api/contacts',
      headers: { authorization },
      payload: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
    });
    expect(created.statusCode).toBe(201);
    const missing = await app.inject({
      method: 'GET',
      url: '/api/contacts/con_01ARZ3NDEKTSV4RRFFQ69G5FAV',
      headers: { authorization },
    });
    expect(missing.statusCode).toBe(404);
    expect(
      (await app.inject({ method: 'GET', url: '/wp-login.php?user=ada@example.com' })).statusCode,
    ).toBe(404);
    // The API's port has no /metrics: it is served on the metrics listener only.
    expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);

    // The event waits in the outbox, undispatched, for 3 seconds.
    clock.advance(3_000);
    const waiting = await scrape(listener);
    expect(sampleValue(waiting, 'followup_outbox_pending_events')).toBe(1);
    expect(sampleValue(waiting, 'followup_outbox_oldest_pending_seconds')).toBe(3);

    const worker = createDeliveryWorker({
      database: database(),
      clock,
      newId,
      allowPrivate: true,
      retryDelays: [3600],
      attemptTimeoutMs: 60_000,
      onAttempt: metrics.observeAttempt,
    });
    closers.push(() => worker.close());
    await worker.runDue();

    // EHR receipts: accepted, replayed, bad signature, an unknown vendor, one without a secret.
    const body = '{"event":"patient.updated"}';
    const signature = `sha256=${createHmac('sha256', ehrSecret).update(body).digest('hex')}`;
    const ehr = (vendor: string, header: string) =>
      app.inject({
        method: 'POST',
        url: `/api/ehr/webhooks/${vendor}`,
        headers: { 'content-type': 'application/json', 'x-hub-signature': header },
        payload: body,
      });
    expect((await ehr('athenahealth', signature)).statusCode).toBe(202);
    expect((await ehr('athenahealth', signature)).statusCode).toBe(202);
    expect((await ehr('athenahealth', 'sha256=00')).statusCode).toBe(401);
    expect((await ehr('no-such-vendor-ada', signature)).statusCode).toBe(404);
    expect((await ehr('metriport', signature)).statusCode).toBe(501);

    const inbox = await app.inject({
      method: 'POST',
      url: '/api/inbox/webhook',
      headers: { 'x-service-webhook-secret': inboxSecret },
      payload: { from: 'ada@example.com', subject: 'Hello' },
    });
    expect(inbox.statusCode).toBe(201);

    // Sign-ins: the right password, a wrong one, then one over the limit of one failure.
    const user = await webSessionFor({ app, database: database(), clock }, 'AGENT');
    const signIn = (password: string) =>
      app.inject({
        method: 'POST',
        url: '/signin',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'sec-fetch-site': 'same-origin',
        },
        payload: new URLSearchParams({ email: user.email, password }).toString(),
      });
    expect((await signIn(TEST_PASSWORD)).statusCode).toBe(303);
    expect((await signIn('wrong password, clearly')).statusCode).toBe(401);
    expect((await signIn(TEST_PASSWORD)).statusCode).toBe(429);

    const families = await scrape(listener);
    for (const [name, labelNames] of Object.entries(expectedLabelNames)) {
      const samples = [...families.values()]
        .flatMap((family) => family.samples)
        .filter((sample) => sample.name === name);
      expect(samples.length, name).toBeGreaterThan(0);
      for (const sample of samples)
        expect(Object.keys(sample.labels).sort(), name).toEqual(labelNames);
    }
    const requests = 'followup_http_requests_total';
    expect(
      sampleValue(families, requests, { method: 'POST', route: '/api/contacts', status: '201' }),
    ).toBe(1);
    expect(
      sampleValue(families, requests, { method: 'GET', route: '/api/contacts/:id', status: '404' }),
    ).toBe(1);
    expect(
      sampleValue(families, requests, { method: 'GET', route: 'unmatched', status: '404' }),
    ).toBe(2);
    expect(
      sampleValue(families, requests, {
        method: 'POST',
        route: '/api/ehr/webhooks/:ehr',
        status: '202',
      }),
    ).toBe(2);
    // No raw URL, id or e-mail address in any label.
    const labelValues = [...families.values()]
      .flatMap((family) => family.samples)
      .flatMap((sample) => Object.values(sample.labels));
    for (const value of labelValues) expect(value).not.toMatch(/con_|wp-login|@|no-such-vendor/);

    const attempts = 'followup_webhook_attempts_total';
    expect(sampleValue(families, attempts, { outcome: 'success' })).toBe(1);
    expect(sampleValue(families, attempts, { outcome: 'http_error' })).toBe(1);
    expect(sampleValue(families, attempts, { outcome: 'network_error' })).toBe(1);
    expect(sampleValue(families, attempts, { outcome: 'timeout' })).toBe(0);
    expect(sampleValue(families, attempts, { outcome: 'refused' })).toBe(0);
    // From the event's commit to its delivery: the 3 seconds it waited.
    expect(sampleValue(families, 'followup_webhook_delivery_seconds_count')).toBe(1);
    expect(sampleValue(families, 'followup_webhook_delivery_seconds_sum')).toBe(3);
    expect(sampleValue(families, 'followup_webhook_delivery_seconds_bucket', { le: '2.5' })).toBe(
      0,
    );
    expect(sampleValue(families, 'followup_webhook_delivery_seconds_bucket', { le: '5' })).toBe(1);
    // The contact's event was fanned out; the receipt's and the message's, written since, wait.
    expect(sampleValue(families, 'followup_outbox_pending_events')).toBe(2);
    expect(sampleValue(families, 'followup_outbox_oldest_pending_seconds')).toBe(0);

    const states = 'followup_webhook_endpoints';
    expect(sampleValue(families, states, { state: 'active' })).toBe(1);
    expect(sampleValue(families, states, { state: 'failing' })).toBe(2);
    expect(sampleValue(families, states, { state: 'disabled' })).toBe(1);

    const receipts = 'followup_ehr_receipts_total';
    expect(sampleValue(families, receipts, { vendor: 'athenahealth', outcome: 'accepted' })).toBe(
      1,
    );
    expect(sampleValue(families, receipts, { vendor: 'athenahealth', outcome: 'replay' })).toBe(1);
    expect(
      sampleValue(families, receipts, { vendor: 'athenahealth', outcome: 'bad_signature' }),
    ).toBe(1);
    expect(sampleValue(families, receipts, { vendor: 'unknown', outcome: 'unsupported' })).toBe(1);
    expect(sampleValue(families, receipts, { vendor: 'metriport', outcome: 'unsupported' })).toBe(
      1,
    );
    expect(sampleValue(families, 'followup_inbox_messages_total')).toBe(1);

    const signIns = 'followup_sign_in_attempts_total';
    expect(sampleValue(families, signIns, { outcome: 'success' })).toBe(1);
    expect(sampleValue(families, signIns, { outcome: 'failure' })).toBe(1);
    expect(sampleValue(families, signIns, { outcome: 'throttled' })).toBe(1);
    expect(sampleValue(families, 'followup_database_queued_queries')).toBe(0);
  });

  it('keeps the counts of two servers in one process apart', async () => {
    const first = createServerMetrics({ database: database() });
    const second = createServerMetrics({ database: database() });
    first.observeInboxMessage();
    const firstListener = await listenForMetrics(first, { port: 0 });
    closers.push(() => firstListener.close());
    const secondListener = await listenForMetrics(second, { port: 0 });
    closers.push(() => secondListener.close());
    expect(sampleValue(await scrape(firstListener), 'followup_inbox_messages_total')).toBe(1);
    expect(sampleValue(await scrape(secondListener), 'followup_inbox_messages_total')).toBe(0);
  });

  it('answers anything but GET /metrics 404 problem+json on the metrics listener', async () => {
    const listener = await listenForMetrics(createServerMetrics({ database: database() }), {
      port: 0,
    });
    closers.push(() => listener.close());
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/api/contacts'],
      ['POST', '/metrics'],
    ] as const) {
      const response = await fetch(`${listener.url}${path}`, { method });
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      expect(await response.json()).toMatchObject({ code: 'not_found', status: 404 });
    }
  });

  it('reads NaN for the database gauges while the database does not answer, and still serves the rest', async () => {
    const failures: unknown[] = [];
    const down = {
      ...database(),
      query: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')),
    };
    const metrics = createServerMetrics({
      database: down,
      onError: (error) => failures.push(error),
    });
    const listener = await listenForMetrics(metrics, { port: 0 });
    closers.push(() => listener.close());
    const families = await scrape(listener);
    expect(sampleValue(families, 'followup_outbox_pending_events')).toBeNaN();
    expect(sampleValue(families, 'followup_webhook_endpoints', { state: 'active' })).toBeNaN();
    expect(sampleValue(families, 'followup_inbox_messages_total')).toBe(0);
    expect(failures).toHaveLength(2);
  });
});

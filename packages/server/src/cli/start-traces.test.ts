import { verifySignature } from '@followup/webhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { captureIo } from '../../test/support/cli-io.js';
import { useTestDatabase } from '../../test/support/database.js';
import { type ReceivedSpan, startOtlpReceiver } from '../../test/support/otlp-receiver.js';
import { startSubscriber } from '../../test/support/subscriber.js';
import { createAccountStore } from '../tokens/account-store.js';
import { STATEMENT_LABELS } from '../tracing/statement-label.js';
import { runCli } from './run-cli.js';

const INCOMING_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const INCOMING_SPAN_ID = '00f067aa0ba902b7';
const SERVER_KIND = 2;

// Whether `span` descends from the span `ancestorId`, through the spans received.
function descendsFrom(span: ReceivedSpan, ancestorId: string, spans: ReceivedSpan[]): boolean {
  const byId = new Map(spans.map((each) => [each.spanId, each]));
  for (let at = span.parentSpanId; at; at = byId.get(at)?.parentSpanId) {
    if (at === ancestorId) return true;
  }
  return false;
}

describe('start with the OpenTelemetry variables', () => {
  const database = useTestDatabase();
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('exports the request, its statements and the webhook attempt as one trace, which the webhook carries on', async () => {
    const receiver = await startOtlpReceiver();
    const subscriber = await startSubscriber();
    // The SDK reads process.env, `start` the environment it is given: both hold the same.
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    };
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    const controller = new AbortController();
    const captured = captureIo(env, controller.signal);
    captured.io.database = database();
    const exit = runCli(
      ['start', '--port', '0', '--json', '--allow-private-endpoints', '--allow-insecure-endpoints'],
      captured.io,
    );
    const email = 'ada.traced@example.com';
    let token = '';
    let endpoint: { id: string; secret: string };
    try {
      const { url } = JSON.parse(await captured.firstLine) as { url: string };
      const accounts = createAccountStore({ database: database() });
      const account = await accounts.createAccount({ name: 'tracing', role: 'ADMIN' });
      token = (await accounts.issueToken({ accountId: account.id })).token;
      const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
        fetch(`${url}${path}`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            ...headers,
          },
          body: JSON.stringify(body),
        });
      const made = await post('/api/webhook-endpoints', {
        url: subscriber.url,
        events: ['contact.created'],
      });
      expect(made.status).toBe(201);
      endpoint = (await made.json()) as { id: string; secret: string };
      const created = await post(
        '/api/contacts',
        { firstName: 'Ada', lastName: 'Lovelace', email },
        { traceparent: `00-${INCOMING_TRACE_ID}-${INCOMING_SPAN_ID}-01` },
      );
      expect(created.status).toBe(201);
      await subscriber.waitFor(1);
    } finally {
      controller.abort();
      expect(await exit).toBe(0);
      await subscriber.close();
      await receiver.close();
    }

    // Shutting down flushed every span: the request's, its statements' and the attempt's.
    const spans = receiver.spans();
    const request = spans.find((span) => span.name === 'POST /api/contacts');
    expect(request).toMatchObject({
      traceId: INCOMING_TRACE_ID,
      parentSpanId: INCOMING_SPAN_ID,
      kind: SERVER_KIND,
      serviceName: 'followup-server',
      attributes: {
        'http.request.method': 'POST',
        'http.route': '/api/contacts',
        'http.response.status_code': 201,
      },
    });
    const requestSpanId = request?.spanId as string;
    const statements = spans.filter(
      (span) =>
        span.traceId === INCOMING_TRACE_ID &&
        (STATEMENT_LABELS as readonly string[]).includes(span.name) &&
        descendsFrom(span, requestSpanId, spans),
    );
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.every((span) => span.attributes['db.system.name'] === 'postgresql')).toBe(
      true,
    );
    const attempt = spans.find((span) => span.name === 'webhook attempt');
    expect(attempt).toMatchObject({
      traceId: INCOMING_TRACE_ID,
      attributes: {
        'followup.endpoint.id': endpoint.id,
        'followup.webhook.outcome': 'success',
        'http.response.status_code': 200,
      },
    });
    expect(descendsFrom(attempt as ReceivedSpan, requestSpanId, spans)).toBe(true);
    // The attempt's own statements (its record) are its children.
    expect(spans.some((span) => span.parentSpanId === attempt?.spanId)).toBe(true);

    // The subscriber received the attempt's span as its parent, and a signature that still holds.
    const [delivery] = subscriber.received;
    expect(delivery?.headers.traceparent).toBe(`00-${INCOMING_TRACE_ID}-${attempt?.spanId}-01`);
    expect(() =>
      verifySignature(delivery?.body ?? '', delivery?.headers ?? {}, { secret: endpoint.secret }),
    ).not.toThrow();

    // Nothing of the data, the token or the endpoint's secret reached the trace backend.
    const exported = receiver.bodies.join('\n');
    for (const secret of [email, token, endpoint.secret, subscriber.url]) {
      expect(exported).not.toContain(secret);
    }
  });
});

import { propagation, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recordSpans } from '../../test/support/recorded-spans.js';
import { useTestServer } from '../../test/support/server.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

describe('request spans', () => {
  const recorded = recordSpans();
  const server = useTestServer({
    tracing: recorded.tracing,
    configure: (app) => {
      app.get('/boom', async () => {
        throw new Error('alice@example.com broke it');
      });
    },
  });
  beforeAll(() => {
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });
  afterAll(() => {
    propagation.disable();
  });
  beforeEach(() => recorded.reset());

  const requestSpans = () => recorded.spans().filter((span) => span.kind === SpanKind.SERVER);

  it('names a span by method and route pattern, as a child of the incoming traceparent', async () => {
    const { token } = await server().tokenFor('ADMIN');
    const response = await server().app.inject({
      method: 'GET',
      url: '/api/contacts/con_01JNOSUCHCONTACT0000000000',
      headers: {
        authorization: `Bearer ${token}`,
        traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`,
      },
    });
    expect(response.statusCode).toBe(404);
    const [span] = requestSpans();
    expect(span?.name).toBe('GET /api/contacts/:id');
    expect(span?.spanContext().traceId).toBe(TRACE_ID);
    expect(span?.parentSpanContext?.spanId).toBe(PARENT_ID);
    expect(span?.attributes).toEqual({
      'http.request.method': 'GET',
      'http.route': '/api/contacts/:id',
      'http.response.status_code': 404,
      'url.scheme': 'http',
      'followup.request.id': response.headers['x-request-id'],
    });
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('starts a trace of its own without a traceparent, or with a malformed one', async () => {
    for (const traceparent of [undefined, 'not-a-traceparent']) {
      recorded.reset();
      await server().app.inject({
        method: 'GET',
        url: '/healthz',
        headers: traceparent === undefined ? {} : { traceparent },
      });
      const [span] = requestSpans();
      expect(span?.name).toBe('GET /healthz');
      expect(span?.parentSpanContext).toBeUndefined();
    }
  });

  it('names a request no route matched by its method alone, and records no URL, query or header', async () => {
    const { token } = await server().tokenFor('ADMIN');
    await server().app.inject({
      method: 'GET',
      url: '/no/such/alice@example.com?email=alice@example.com',
      headers: { authorization: `Bearer ${token}` },
    });
    await server().app.inject({
      method: 'GET',
      url: '/api/contacts?email=alice@example.com',
      headers: { authorization: `Bearer ${token}` },
    });
    const [unmatched, listed] = requestSpans();
    expect(unmatched?.name).toBe('GET');
    expect(unmatched?.attributes).not.toHaveProperty('http.route');
    expect(listed?.name).toBe('GET /api/contacts');
    const recordedText = JSON.stringify(
      recorded.spans().map((span) => [span.name, span.attributes, span.events]),
    );
    expect(recordedText).not.toContain('alice');
    expect(recordedText).not.toContain(token);
  });

  it('ends a 5xx as an error, without the error message', async () => {
    const response = await server().app.inject({ method: 'GET', url: '/boom' });
    expect(response.statusCode).toBe(500);
    const [span] = requestSpans();
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes['error.type']).toBe('500');
    expect(JSON.stringify([span?.attributes, span?.events, span?.status])).not.toContain('alice');
  });
});

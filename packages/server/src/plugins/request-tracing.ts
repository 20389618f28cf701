import {
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerTracing } from '../tracing/server-tracing.js';

interface RequestSpan {
  span: Span;
  /** The request's context with its span: what the hooks and the handler run in. */
  active: Context;
}

/**
 * @internal One server span per request, `METHOD /route/pattern` (`POST /api/contacts`; the method
 * alone for a request no route matched), a child of the incoming W3C `traceparent` when there is
 * one (read by the propagators the SDK registered: W3C Trace Context by default), with the
 * method, the route's pattern, the status and the request's id; never the URL itself, its query,
 * a header or the body, which can carry e-mail addresses, tokens and patients' data. A 5xx ends
 * it as an error.
 *
 * The span is made active for the request's hooks and its handler, so that the statements they
 * send are its children: entered when the request arrives (the authentication's statements),
 * and again once the body is read, which happens in the socket's events, outside it.
 */
export function installRequestTracing(app: FastifyInstance, tracing: ServerTracing): void {
  const { tracer } = tracing;
  const spans = new WeakMap<FastifyRequest, RequestSpan>();

  app.addHook('onRequest', (request, _reply, done) => {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const route = request.is404 ? undefined : request.routeOptions.url;
    const span = tracer.startSpan(
      route === undefined ? request.method : `${request.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          ...(route === undefined ? {} : { 'http.route': route }),
          'url.scheme': request.protocol,
          'followup.request.id': request.id,
        },
      },
      parent,
    );
    const active = trace.setSpan(parent, span);
    spans.set(request, { span, active });
    context.with(active, done);
  });

  app.addHook('preValidation', (request, _reply, done) => {
    const entry = spans.get(request);
    if (entry === undefined) return done();
    context.with(entry.active, done);
  });

  const end = (request: FastifyRequest, status: number | undefined) => {
    const entry = spans.get(request);
    if (entry === undefined) return;
    spans.delete(request);
    const { span } = entry;
    if (status === undefined) {
      // The client went away before the answer.
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute('error.type', 'aborted');
    } else {
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.setAttribute('error.type', String(status));
      }
    }
    span.end();
  };
  app.addHook('onResponse', (request, reply, done) => {
    end(request, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    end(request, undefined);
    done();
  });
}

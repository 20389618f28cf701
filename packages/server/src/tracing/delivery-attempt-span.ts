import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ServerTracing } from './server-tracing.js';
import { formatTraceparent, parseTraceparent } from './traceparent.js';

/** @internal The delivery attempt a span is started for. */
export interface DeliveryAttemptToTrace {
  deliveryId: string;
  endpointId: string;
  /** The event kind, such as `contact.created`. */
  eventKind: string;
  /** 1 for the first attempt of the delivery. */
  attemptNumber: number;
  /** The `traceparent` the outbox event kept of the request that wrote it, if any. */
  traceContext: string | null;
}

/** @internal How the attempt ended, for its span. */
export interface DeliveryAttemptEnding {
  /** As `followup_webhook_attempts_total{outcome}` counts it (`success`, `http_error`…). */
  outcome: string;
  /** The subscriber's status, when it answered. */
  status?: number | undefined;
}

/** @internal The span of one delivery attempt, started by {@link startDeliveryAttemptSpan}. */
export interface DeliveryAttemptSpan {
  /** The `traceparent` header of this span, which the outbound webhook carries. */
  readonly headers: Readonly<Record<string, string>>;
  /** Runs `work` with this span active: the statements that record the attempt are its children. */
  within<T>(work: () => Promise<T>): Promise<T>;
  /** Ends the span with the attempt's outcome and status. */
  end(ending: DeliveryAttemptEnding): void;
}

/**
 * @internal Starts the client span of one delivery attempt (`webhook attempt`), a child of the
 * span that wrote its event (kept in the outbox as a `traceparent`), so that a request and the
 * webhooks it caused are one trace, retries included; an event written without one starts a
 * trace of its own. The span carries the endpoint's and the delivery's ids, the event kind, the
 * attempt's number, its outcome and the subscriber's status: never the endpoint's URL (which may
 * hold a secret), the body or the signature.
 */
export function startDeliveryAttemptSpan(
  tracing: ServerTracing,
  attempt: DeliveryAttemptToTrace,
): DeliveryAttemptSpan {
  const written = parseTraceparent(attempt.traceContext);
  const parent = written ? trace.setSpanContext(ROOT_CONTEXT, written) : ROOT_CONTEXT;
  const span = tracing.tracer.startSpan(
    'webhook attempt',
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': 'POST',
        'followup.endpoint.id': attempt.endpointId,
        'followup.delivery.id': attempt.deliveryId,
        'followup.event.kind': attempt.eventKind,
        'followup.delivery.attempt': attempt.attemptNumber,
      },
    },
    parent,
  );
  const active = trace.setSpan(parent, span);
  const traceparent = formatTraceparent(span.spanContext());
  return {
    headers: traceparent === undefined ? {} : { traceparent },
    within: (work) => context.with(active, work),
    end({ outcome, status }) {
      span.setAttribute('followup.webhook.outcome', outcome);
      if (status !== undefined) span.setAttribute('http.response.status_code', status);
      if (outcome !== 'success') {
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.setAttribute('error.type', status === undefined ? outcome : String(status));
      }
      span.end();
    },
  };
}

import { context, trace } from '@opentelemetry/api';
import { formatTraceparent } from './traceparent.js';

/**
 * @internal The `traceparent` of the span active now (the request's, or a statement's within
 * it), which an outbox event keeps so that its delivery attempts join the request's trace;
 * `undefined` when no span is active, as always when traces are off (the API's no-op context
 * holds none, and this costs a lookup in an empty context).
 */
export function activeTraceparent(): string | undefined {
  const span = trace.getSpan(context.active());
  return span === undefined ? undefined : formatTraceparent(span.spanContext());
}

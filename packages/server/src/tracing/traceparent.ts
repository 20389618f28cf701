import { isSpanContextValid, type SpanContext, TraceFlags } from '@opentelemetry/api';

// version "00", a 32-hex trace id, a 16-hex parent (span) id and two hex digits of flags, as the
// W3C Trace Context recommendation writes the `traceparent` header. Lower-case only: a receiver
// must refuse upper-case hex.
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * @internal A span's context as a W3C `traceparent` value (`00-<trace id>-<span id>-<flags>`):
 * what an outbox event keeps of the request that wrote it, and what an outbound webhook carries.
 * `undefined` for an invalid context (the no-op tracer's, when tracing is off).
 */
export function formatTraceparent(spanContext: SpanContext): string | undefined {
  if (!isSpanContextValid(spanContext)) return undefined;
  const flags = (spanContext.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, '0');
  return `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
}

/**
 * @internal Reads a `traceparent` value written by {@link formatTraceparent} back into a remote
 * span context; `undefined` for anything else (another version, upper-case hex, an all-zero id),
 * so that a damaged column starts a trace of its own rather than failing a delivery.
 */
export function parseTraceparent(text: string | null | undefined): SpanContext | undefined {
  if (typeof text !== 'string') return undefined;
  const match = TRACEPARENT.exec(text);
  if (match === null) return undefined;
  const spanContext: SpanContext = {
    traceId: match[1] as string,
    spanId: match[2] as string,
    traceFlags: Number.parseInt(match[3] as string, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  return isSpanContextValid(spanContext) ? spanContext : undefined;
}

import { ConfigurationError } from '../follow-up-error.js';
import type { TracingApi } from '../tracing-api.js';

/** The W3C Trace Context headers a call carries: nothing else a propagator writes is sent. */
const TRACE_HEADERS: ReadonlySet<string> = new Set(['traceparent', 'tracestate']);

/**
 * The `traceparent` and `tracestate` of the context active at a call, written by the propagators
 * registered with `@opentelemetry/api` (the `tracing` option); nothing when no span is active or
 * no propagator writes them. A propagator that throws costs the call its trace headers, never
 * the call itself.
 *
 * @throws {@link ConfigurationError} when `tracing` lacks `context.active()` or
 *   `propagation.inject()`.
 */
export function traceHeadersFrom(
  tracing: TracingApi | undefined,
): (() => Record<string, string>) | undefined {
  if (tracing === undefined) return undefined;
  if (
    typeof tracing !== 'object' ||
    tracing === null ||
    typeof tracing.context?.active !== 'function' ||
    typeof tracing.propagation?.inject !== 'function'
  ) {
    throw new ConfigurationError({
      message:
        "tracing must be @opentelemetry/api's module, or an object with its context and propagation.",
    });
  }
  return () => {
    const carrier: Record<string, string> = {};
    try {
      // Called on their objects: the API's methods read their registered globals through `this`.
      tracing.propagation.inject(tracing.context.active(), carrier);
    } catch {
      return {};
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(carrier)) {
      const lower = name.toLowerCase();
      if (TRACE_HEADERS.has(lower) && typeof value === 'string') headers[lower] = value;
    }
    return headers;
  };
}

import { type Tracer, type TracerProvider, trace } from '@opentelemetry/api';

/** The instrumentation scope of every span the server makes. */
export const TRACER_NAME = '@followup/server';

/**
 * The server's traces: the tracer its request, statement and delivery-attempt spans come from,
 * and the end of the SDK that exports them. Made by `followup-server start` only when the
 * OpenTelemetry variables ask for traces (see the README, "Traces"); without one, the server
 * makes no span at all.
 */
export interface ServerTracing {
  /** Where every span of this server comes from. */
  readonly tracer: Tracer;
  /** Exports the spans still buffered and stops the SDK (a no-op when `start` did not load one). */
  shutdown(): Promise<void>;
}

/** Options of {@link createServerTracing}. */
export interface ServerTracingOptions {
  /** Where the tracer comes from; the provider registered with `@opentelemetry/api` by default. */
  tracerProvider?: TracerProvider;
  /** What {@link ServerTracing.shutdown} does: flush and stop the SDK that exports the spans. */
  shutdown?: () => Promise<void>;
}

/**
 * The server's tracing over a tracer provider: the one registered globally (by the Node SDK that
 * `start` loads, or by an application embedding the server), or one a test passes.
 *
 * @example
 * ```ts
 * const tracing = createServerTracing({ tracerProvider: provider });
 * const app = buildServer({ database: traceStatements(database, tracing), tracing });
 * ```
 */
export function createServerTracing(options: ServerTracingOptions = {}): ServerTracing {
  const provider = options.tracerProvider ?? trace.getTracerProvider();
  const shutdown = options.shutdown ?? (async () => {});
  return { tracer: provider.getTracer(TRACER_NAME), shutdown };
}

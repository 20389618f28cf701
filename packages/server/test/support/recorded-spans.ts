import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { createServerTracing, type ServerTracing } from '../../src/tracing/server-tracing.js';

/** The server's tracing over a provider of its own that keeps every ended span in memory. */
export interface RecordedSpans {
  tracing: ServerTracing;
  /** Every span ended so far. */
  spans(): ReadableSpan[];
  /** Forgets the spans ended so far. */
  reset(): void;
}

export function recordSpans(): RecordedSpans {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  return {
    tracing: createServerTracing({ tracerProvider }),
    spans: () => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
  };
}

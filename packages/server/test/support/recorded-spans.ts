import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type Context,
  type ContextManager,
  context,
  ROOT_CONTEXT,
  type SpanContext,
  trace,
} from '@opentelemetry/api';
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

/**
 * A context manager on `AsyncLocalStorage`, as the Node SDK registers one (its package is the
 * SDK's dependency, not the server's): the active span follows awaits. Registered globally until
 * the function returned is called.
 */
export function registerAsyncContext(): () => void {
  const storage = new AsyncLocalStorage<Context>();
  const manager: ContextManager = {
    active: () => storage.getStore() ?? ROOT_CONTEXT,
    with: (active, fn, thisArg, ...args) => storage.run(active, () => fn.apply(thisArg, args)),
    bind: (_active, target) => target,
    enable() {
      return this;
    },
    disable() {
      storage.disable();
      return this;
    },
  };
  context.setGlobalContextManager(manager);
  return () => context.disable();
}

/**
 * Runs `work` with a span of `spanContext` active, as a request's span is while its handler runs
 * (what `activeTraceparent` reads), under {@link registerAsyncContext}'s manager until it ends.
 */
export async function withActiveSpan<T>(
  spanContext: SpanContext,
  work: () => Promise<T>,
): Promise<T> {
  const unregister = registerAsyncContext();
  try {
    return await context.with(trace.setSpanContext(ROOT_CONTEXT, spanContext), work);
  } finally {
    unregister();
  }
}

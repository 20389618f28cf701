import { readdirSync, readFileSync } from 'node:fs';
import * as api from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigurationError, FollowUp } from '../src/index.js';
import { type Fixture, startFixture, TOKEN } from './fixture-server.js';
import { clientFor } from './helpers.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';

// A context manager and a W3C propagator as an application's OpenTelemetry set-up registers them
// (the SDK's are in packages this one does not depend on): small, but through the API's globals.
class StackContextManager implements api.ContextManager {
  #stack: api.Context[] = [];
  active(): api.Context {
    return this.#stack.at(-1) ?? api.ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: api.Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    this.#stack.push(context);
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.#stack.pop();
    }
  }
  bind<T>(_context: api.Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.#stack = [];
    return this;
  }
}

const w3cPropagator: api.TextMapPropagator = {
  inject(context, carrier, setter) {
    const span = api.trace.getSpanContext(context);
    if (span === undefined || !api.isSpanContextValid(span)) return;
    setter.set(carrier, 'traceparent', `00-${span.traceId}-${span.spanId}-0${span.traceFlags}`);
    const state = span.traceState?.serialize();
    if (state) setter.set(carrier, 'tracestate', state);
    setter.set(carrier, 'baggage', 'user=alice@example.com');
  },
  extract: (context) => context,
  fields: () => ['traceparent', 'tracestate'],
};

let fixture: Fixture;
beforeAll(async () => {
  fixture = await startFixture({ contacts: 3 });
});
afterAll(() => fixture.close());
beforeEach(() => {
  fixture.requests.length = 0;
  api.context.setGlobalContextManager(new StackContextManager());
  api.propagation.setGlobalPropagator(w3cPropagator);
});
afterEach(() => {
  api.context.disable();
  api.propagation.disable();
});

const inSpan = <T>(work: () => T): T =>
  api.context.with(
    api.trace.setSpanContext(api.ROOT_CONTEXT, {
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      traceFlags: api.TraceFlags.SAMPLED,
      traceState: api.createTraceState('vendor=opaque'),
    }),
    work,
  );

describe('the tracing option', () => {
  it("sends the active context's traceparent and tracestate, and nothing else the propagators write", async () => {
    const { client } = clientFor(fixture, { tracing: api });
    await inSpan(() => client.contacts.get('con_00000001'));
    expect(fixture.requests.at(-1)?.headers).toMatchObject({
      traceparent: `00-${TRACE_ID}-${SPAN_ID}-01`,
      tracestate: 'vendor=opaque',
    });
    expect(fixture.requests.at(-1)?.headers).not.toHaveProperty('baggage');
  });

  it('sends no trace header outside a span, and lets a traceparent given by hand win', async () => {
    const { client } = clientFor(fixture, { tracing: api });
    await client.contacts.get('con_00000001');
    expect(fixture.requests.at(-1)?.headers).not.toHaveProperty('traceparent');
    await inSpan(() =>
      client.contacts.get('con_00000001', { headers: { traceparent: 'by-hand' } }),
    );
    expect(fixture.requests.at(-1)?.headers.traceparent).toBe('by-hand');
  });

  it('costs a call only its trace headers when a propagator throws', async () => {
    api.propagation.disable();
    api.propagation.setGlobalPropagator({
      ...w3cPropagator,
      inject() {
        throw new Error('broken propagator');
      },
    });
    const { client } = clientFor(fixture, { tracing: api });
    const contact = await inSpan(() => client.contacts.get('con_00000001'));
    expect(contact.id).toBe('con_00000001');
    expect(fixture.requests.at(-1)?.headers).not.toHaveProperty('traceparent');
  });

  it('refuses a tracing value that is not the API', () => {
    for (const tracing of [{}, { context: api.context }, 'api', null]) {
      expect(
        () =>
          new FollowUp({
            token: TOKEN,
            baseUrl: fixture.baseUrl,
            tracing: tracing as never,
          }),
      ).toThrow(ConfigurationError);
    }
  });
});

describe('without @opentelemetry/api', () => {
  it('sends no trace header, even inside an active span, when the option is not given', async () => {
    const { client } = clientFor(fixture);
    await inSpan(() => client.contacts.get('con_00000001'));
    expect(fixture.requests.at(-1)?.headers).not.toHaveProperty('traceparent');
  });

  it('never imports it: no source file names the package, so no runtime or bundler looks for it', () => {
    const src = new URL('../src/', import.meta.url);
    const sources = (readdirSync(src, { recursive: true }) as string[]).filter(
      (file) => file.endsWith('.ts') && !file.includes('.test'),
    );
    expect(sources.length).toBeGreaterThan(50);
    for (const file of sources) {
      const text = readFileSync(new URL(file, src), 'utf8');
      // Comments aside: the option's documentation shows the import an application writes.
      expect(text, file).not.toMatch(/^\s*(import|export)\s[^\n]*['"]@opentelemetry\/api['"]/m);
      expect(text, file).not.toMatch(/import\(\s*['"]@opentelemetry\/api['"]/);
    }
  });
});

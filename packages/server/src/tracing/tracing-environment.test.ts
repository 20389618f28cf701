import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tracingRequested, tracingServiceName } from './tracing-environment.js';

const unrelated = fc.dictionary(
  fc.string().filter((name) => !name.startsWith('OTEL_')),
  fc.string(),
);
const exporterName = fc.constantFrom('otlp', 'console', 'zipkin', ' otlp ', 'none', ' none');

describe('tracingRequested', () => {
  it('asks for nothing without the OpenTelemetry variables, whatever else is set', () => {
    fc.assert(
      fc.property(unrelated, (env) => {
        expect(tracingRequested(env)).toBe(false);
      }),
    );
    expect(
      tracingRequested({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }),
    ).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBe(false);
  });

  it('asks for traces when an exporter list names one and not none', () => {
    fc.assert(
      fc.property(fc.array(exporterName, { minLength: 1, maxLength: 4 }), (names) => {
        const env = { OTEL_TRACES_EXPORTER: names.join(',') };
        const listed = names.map((name) => name.trim());
        expect(tracingRequested(env)).toBe(!listed.includes('none'));
        // `none` wins over an endpoint too, as it does in the SDK.
        expect(
          tracingRequested({ ...env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }),
        ).toBe(!listed.includes('none'));
      }),
    );
  });

  it('asks for traces when an OTLP endpoint is set, unless the SDK is disabled', () => {
    for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) {
      expect(tracingRequested({ [name]: 'http://collector:4318' })).toBe(true);
      expect(tracingRequested({ [name]: 'http://collector:4318', OTEL_SDK_DISABLED: 'TRUE' })).toBe(
        false,
      );
    }
  });
});

describe('tracingServiceName', () => {
  it('is OTEL_SERVICE_NAME, or followup-server', () => {
    expect(tracingServiceName({})).toBe('followup-server');
    expect(tracingServiceName({ OTEL_SERVICE_NAME: ' ' })).toBe('followup-server');
    expect(tracingServiceName({ OTEL_SERVICE_NAME: 'crm-api' })).toBe('crm-api');
  });
});

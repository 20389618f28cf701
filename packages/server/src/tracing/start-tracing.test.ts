import { afterEach, describe, expect, it, vi } from 'vitest';
import { captureIo } from '../../test/support/cli-io.js';
import { useTestDatabase } from '../../test/support/database.js';
import { runCli } from '../cli/run-cli.js';

// The OpenTelemetry Node SDK, replaced by one that records whether it was ever loaded (its module
// evaluated), how it was configured, and whether it was shut down.
const sdk = vi.hoisted(() => ({
  loaded: 0,
  configurations: [] as Record<string, unknown>[],
  started: 0,
  shutDown: 0,
}));
vi.mock('@opentelemetry/sdk-node', () => {
  sdk.loaded++;
  return {
    NodeSDK: class {
      constructor(configuration: Record<string, unknown>) {
        sdk.configurations.push(configuration);
      }
      start() {
        sdk.started++;
      }
      async shutdown() {
        sdk.shutDown++;
      }
    },
  };
});

describe('start and the OpenTelemetry Node SDK', () => {
  const database = useTestDatabase();
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  async function startAndStop(env: Record<string, string>): Promise<void> {
    const controller = new AbortController();
    const captured = captureIo(env, controller.signal);
    captured.io.database = database();
    const exit = runCli(['start', '--port', '0', '--json'], captured.io);
    const { url } = JSON.parse(await captured.firstLine) as { url: string };
    expect((await fetch(`${url}/livez`)).status).toBe(200);
    controller.abort();
    expect(await exit).toBe(0);
  }

  // First: a module is loaded once per file, and this test must see it not loaded yet.
  it('never loads the SDK without the variables that ask for traces', async () => {
    await startAndStop({});
    await startAndStop({ OTEL_SERVICE_NAME: 'crm', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
    await startAndStop({
      OTEL_TRACES_EXPORTER: 'none',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
    });
    expect(sdk.loaded).toBe(0);
  });

  it('loads and starts it for traces only, as followup-server, and shuts it down with the server', async () => {
    await startAndStop({ OTEL_TRACES_EXPORTER: 'console' });
    expect(sdk).toMatchObject({ loaded: 1, started: 1, shutDown: 1 });
    expect(sdk.configurations[0]).toMatchObject({
      serviceName: 'followup-server',
      metricReaders: [],
      logRecordProcessors: [],
    });
    await startAndStop({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces',
      OTEL_SERVICE_NAME: 'crm-api',
    });
    expect(sdk.configurations[1]).toMatchObject({ serviceName: 'crm-api' });
    expect(sdk.shutDown).toBe(2);
  });
});

import { describe, expect, it } from 'vitest';
import { captureIo } from '../../test/support/cli-io.js';
import { useTestDatabase } from '../../test/support/database.js';
import { parsePrometheusText, sampleValue } from '../../test/support/prometheus-text.js';
import { runCli } from './run-cli.js';

describe('start --metrics-port', () => {
  const database = useTestDatabase();

  it('serves the metrics on a listener of their own, and not on the API port', async () => {
    const controller = new AbortController();
    const captured = captureIo({ METRICS_HOST: '127.0.0.1' }, controller.signal);
    captured.io.database = database();
    const exit = runCli(['start', '--port', '0', '--metrics-port', '0', '--json'], captured.io);
    const announced = JSON.parse(await captured.firstLine) as { url: string; metrics: string };
    try {
      expect(announced.metrics).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      expect((await fetch(`${announced.url}/livez`)).status).toBe(200);
      expect((await fetch(`${announced.url}/metrics`)).status).toBe(404);
      const response = await fetch(announced.metrics);
      expect(response.status).toBe(200);
      const families = parsePrometheusText(await response.text());
      expect(
        sampleValue(families, 'followup_http_requests_total', {
          method: 'GET',
          route: '/livez',
          status: '200',
        }),
      ).toBe(1);
      expect(
        sampleValue(families, 'followup_http_requests_total', {
          method: 'GET',
          route: 'unmatched',
          status: '404',
        }),
      ).toBe(1);
      expect(families.has('process_cpu_seconds_total')).toBe(true);
    } finally {
      controller.abort();
      expect(await exit).toBe(0);
    }
  });

  it('serves no metrics without --metrics-port, and refuses a bad one with a usage error', async () => {
    const controller = new AbortController();
    const captured = captureIo({}, controller.signal);
    captured.io.database = database();
    const exit = runCli(['start', '--port', '0', '--json'], captured.io);
    const announced = JSON.parse(await captured.firstLine) as Record<string, unknown>;
    controller.abort();
    expect(await exit).toBe(0);
    expect(announced).not.toHaveProperty('metrics');
    for (const [argv, env] of [
      [['--metrics-port', 'nine'], {}],
      [[], { METRICS_PORT: '70000' }],
      [['--metrics-host', '0.0.0.0'], {}],
    ] as const) {
      const refused = captureIo(env);
      refused.io.database = database();
      expect(await runCli(['start', '--port', '0', ...argv], refused.io)).toBe(2);
      expect(refused.err.join('')).toMatch(/--metrics-(port|host) \((METRICS_PORT|METRICS_HOST)\)/);
    }
  });
});

import { createServer, type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PROBLEM_CODES, problemType } from '@followup/sdk';
import type { ServerMetrics } from './server-metrics.js';

/** Options of {@link listenForMetrics}. */
export interface MetricsListenerOptions {
  /** The port (`--metrics-port`, `METRICS_PORT`); 0 picks a free one. */
  port: number;
  /** The address (`--metrics-host`, `METRICS_HOST`); `127.0.0.1` by default. */
  host?: string;
  /** Told when a scrape failed (it is answered 500). */
  onError?: (error: unknown) => void;
}

/** A listener serving `GET /metrics`: see {@link listenForMetrics}. */
export interface MetricsListener {
  /** Where it listens, such as `http://127.0.0.1:9464`. */
  readonly url: string;
  /** Stops listening and ends its connections. */
  close(): Promise<void>;
}

// The listener's refusals, in the API's problem+json (RFC 9457) shape.
function problem(response: ServerResponse, code: 'not_found' | 'internal_error', detail: string) {
  const { status } = PROBLEM_CODES[code];
  response.writeHead(status, { 'content-type': 'application/problem+json; charset=utf-8' });
  const title = STATUS_CODES[status] ?? 'Error';
  response.end(JSON.stringify({ type: problemType(code), title, status, detail, code }));
}

/**
 * Serves the metrics on a listener of their own, apart from the API's port (which answers
 * `/metrics` with 404): `GET /metrics` in the Prometheus text format, without authentication, so
 * keep it on loopback or a private network. Anything else is answered 404 problem+json.
 *
 * @example
 * ```ts
 * const listener = await listenForMetrics(metrics, { port: 9464 });
 * // curl http://127.0.0.1:9464/metrics
 * await listener.close();
 * ```
 */
export async function listenForMetrics(
  metrics: ServerMetrics,
  options: MetricsListenerOptions,
): Promise<MetricsListener> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      return problem(response, 'not_found', 'This listener answers GET /metrics only.');
    }
    metrics.scrape().then(
      (text) => {
        response.writeHead(200, { 'content-type': metrics.contentType });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        options.onError?.(error);
        problem(response, 'internal_error', 'The metrics could not be collected.');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

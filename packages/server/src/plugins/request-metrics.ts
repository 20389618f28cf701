import type { FastifyInstance } from 'fastify';
import type { ServerMetrics } from '../metrics/server-metrics.js';

/** The `route` label of a request no route matched (404, or refused by the router). */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * @internal Counts every answered request in `followup_http_requests_total` and
 * `followup_http_request_duration_seconds`, labelled by the route's pattern
 * (`/api/contacts/:id`), never by the URL itself, so that ids, e-mail addresses and scanners'
 * paths cannot grow the number of series: a request no route matched is `unmatched`.
 */
export function installRequestMetrics(app: FastifyInstance, metrics: ServerMetrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest({
      method: request.method,
      route: request.is404 ? UNMATCHED_ROUTE : (request.routeOptions.url ?? UNMATCHED_ROUTE),
      status: reply.statusCode,
      seconds: reply.elapsedTime / 1000,
    });
    done();
  });
}

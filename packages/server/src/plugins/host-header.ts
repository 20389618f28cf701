import type { FastifyInstance } from 'fastify';
import { ProblemError } from '../problem-error.js';
import { sendProblem } from './problem.js';

/** @internal Options of {@link installHostHeaderCheck}. */
export interface HostHeaderOptions {
  /**
   * The origin of `--public-url` (`https://followup.example.org`): when given, a request for any
   * other host is answered 421 `misdirected_request`.
   */
  publicOrigin: string | undefined;
}

/**
 * @internal The routes that answer whatever host a request names: `GET /healthz`, `/livez` and
 * `/readyz`, which a load balancer or an orchestrator probes at each instance's own address, and
 * which tell nobody anything but whether it is up.
 */
export const HOST_EXEMPT_ROUTES: ReadonlySet<string> = new Set(['/healthz', '/livez', '/readyz']);

const defaultPorts: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443' };

/**
 * @internal The `Host` values that name the public URL's origin, lower-case: its host with the
 * port it has, and, when it has the scheme's default port, the host alone and the host with that
 * port written out (`followup.example.org`, `followup.example.org:443`).
 */
export function publicHosts(publicOrigin: string): ReadonlySet<string> {
  const url = new URL(publicOrigin);
  const hosts = new Set([url.host.toLowerCase()]);
  const defaultPort = defaultPorts[url.protocol];
  if (url.port === '' && defaultPort !== undefined) {
    hosts.add(`${url.hostname.toLowerCase()}:${defaultPort}`);
  }
  return hosts;
}

/**
 * @internal Checks the `Host` header of every request before any other hook or the route runs.
 *
 * An HTTP/1.1 request without one is answered 400 `bad_request` as problem+json with
 * `X-Request-Id` and `Connection: close` (RFC 9112 asks for a 400). Node would answer it a plain
 * 400 without a body or a request id itself: `buildServer` turns that off
 * (`requireHostHeader: false`) so that this hook answers.
 *
 * With a public URL, a request for another host (as Fastify reads it: `X-Forwarded-Host` from a
 * trusted proxy, else `Host`; a missing one included) is answered 421 `misdirected_request`,
 * but on {@link HOST_EXEMPT_ROUTES}. A page that a DNS-rebinding attacker's name points at this
 * server then reads nothing from it: the browser sends the attacker's name as the host.
 */
export function installHostHeaderCheck(app: FastifyInstance, options: HostHeaderOptions): void {
  const accepted =
    options.publicOrigin === undefined ? undefined : publicHosts(options.publicOrigin);
  const publicHost = options.publicOrigin === undefined ? '' : new URL(options.publicOrigin).host;
  // A callback hook, as the other checks run on every request: an async hook costs a promise
  // and a turn of the microtask queue per request (measured with the create benchmark).
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    if (raw.headers.host === undefined && raw.httpVersion === '1.1') {
      sendProblem(
        request,
        reply,
        new ProblemError({
          code: 'bad_request',
          detail: 'An HTTP/1.1 request must have a Host header.',
          headers: { Connection: 'close' },
        }),
      );
    } else if (
      accepted !== undefined &&
      !accepted.has(request.host.toLowerCase()) &&
      !HOST_EXEMPT_ROUTES.has(request.routeOptions.url ?? '')
    ) {
      sendProblem(
        request,
        reply,
        new ProblemError({
          code: 'misdirected_request',
          detail: `This server answers requests for ${publicHost} only (its public URL).`,
        }),
      );
    }
    // Answered, or let through; Fastify runs nothing more for a sent reply.
    done();
  });
}

/**
 * How long a client may take and how many connections it may hold: the defences against slow
 * clients (a body sent a byte at a time, headers that never end, idle sockets).
 */
export interface ConnectionLimits {
  /** The most the request line and headers may take to arrive, in ms (408 after). */
  headersTimeoutMs: number;
  /** The most a whole request, headers and body, may take to arrive, in ms (408 after). */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection is kept after a response, in ms. */
  keepAliveTimeoutMs: number;
  /** How long a socket may stay silent (no byte either way) before it is closed, in ms. */
  idleTimeoutMs: number;
  /** The most connections open at once; further ones are closed at once. */
  maxConnections: number;
  /**
   * The most requests one keep-alive connection carries: the last one's answer says
   * `Connection: close`, so that clients reconnect (and a load balancer can spread them again).
   */
  maxRequestsPerConnection: number;
  /**
   * How often the headers and request timeouts are checked, in ms (a timeout can overrun by up
   * to this much). Defaults to a tenth of the headers timeout, at most 1 s.
   */
  checkIntervalMs?: number;
}

/**
 * The defaults: headers within 10 s, a whole request within 30 s (a 1 MiB body at 35 KB/s),
 * keep-alive 10 s, silence 60 s, 4096 connections, 1000 requests per connection (as nginx's
 * `keepalive_requests`). Behind a load balancer, set the keep-alive
 * timeout above the balancer's idle timeout.
 */
export const DEFAULT_CONNECTION_LIMITS: Readonly<
  Required<Omit<ConnectionLimits, 'checkIntervalMs'>>
> = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 10_000,
  idleTimeoutMs: 60_000,
  maxConnections: 4096,
  maxRequestsPerConnection: 1000,
});

/** @internal The Fastify (and Node `http.createServer`) options of the connection limits. */
export function connectionServerOptions(limits: ConnectionLimits) {
  const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs, idleTimeoutMs } = limits;
  for (const [name, value] of Object.entries({
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs,
    idleTimeoutMs,
    maxConnections: limits.maxConnections,
    maxRequestsPerConnection: limits.maxRequestsPerConnection,
  })) {
    if (!(Number.isSafeInteger(value) && value > 0)) {
      throw new RangeError(`${name} must be a positive whole number.`);
    }
  }
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new RangeError('The headers timeout cannot be longer than the request timeout.');
  }
  const checkInterval =
    limits.checkIntervalMs ?? Math.max(1, Math.min(1000, Math.floor(headersTimeoutMs / 10)));
  return {
    connectionTimeout: idleTimeoutMs,
    keepAliveTimeout: keepAliveTimeoutMs,
    requestTimeout: requestTimeoutMs,
    http: {
      headersTimeout: headersTimeoutMs,
      connectionsCheckingInterval: checkInterval,
      // Node's own answer to a missing Host is a plain 400: installHostHeaderCheck answers it.
      requireHostHeader: false,
    },
  };
}

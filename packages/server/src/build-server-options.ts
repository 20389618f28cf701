import type { VendorProfile } from '@followup/webhooks';
import type { Clock } from './clock.js';
import type { ConnectionLimits } from './connection-limits.js';
import type { IdGenerator } from './ids.js';
import type { ServerMetrics } from './metrics/server-metrics.js';
import type { LoggingOptions } from './plugins/logging.js';
import type { RateLimitOptions } from './plugins/rate-limit.js';
import type { EhrWebhookHandler } from './routes/ehr-webhooks.js';
import type { Database } from './storage/database.js';
import type { ServerTracing } from './tracing/server-tracing.js';
import type { SessionPolicy } from './users/sessions.js';
import type { SignInThrottlePolicy } from './users/sign-in-throttle.js';

/** Options of {@link buildServer}. */
export interface BuildServerOptions {
  /**
   * The storage, already migrated (see {@link migrate}). The server does not close it: whoever
   * opened it closes it after `app.close()`.
   */
  database: Database;
  /** The time used for token expiry and every timestamp; defaults to the system clock. */
  clock?: Clock;
  /** Makes ids; defaults to a ULID generator on `clock`. */
  newId?: IdGenerator;
  /**
   * Logging: `false` for none, or a level and a stream. Tokens, secrets, signatures and request
   * bodies are never logged; credential headers are redacted. Defaults to `info` on stdout.
   */
  logger?: false | LoggingOptions;
  /**
   * Requests per token: a bucket of `limit` refilled over `windowSeconds`, counted in this
   * process (each instance counts its own). Over it: 429 `rate_limited` with `Retry-After`.
   * Defaults to {@link DEFAULT_RATE_LIMIT}; `false` turns it off.
   */
  rateLimit?: RateLimitOptions | false;
  /**
   * Requests per client address on the routes that need no token (the inbox and EHR webhooks,
   * sign-in: `app.limitByAddress`), counted before any database work. Over it: 429
   * `rate_limited`. Defaults to {@link DEFAULT_ADDRESS_RATE_LIMIT}; `false` turns it off.
   */
  addressRateLimit?: RateLimitOptions | false;
  /**
   * Failed authentications per client address (a bearer token presented and refused). Past it,
   * requests with a token from that address are answered 429 `rate_limited` before the token is
   * looked up. Defaults to {@link DEFAULT_AUTH_FAILURE_LIMIT}; `false` turns it off.
   */
  authFailureLimit?: RateLimitOptions | false;
  /**
   * The shared secret of `POST /api/inbox/webhook` (`INBOX_WEBHOOK_SECRET`), compared in constant
   * time with the `X-Service-Webhook-Secret` header. Without one the endpoint accepts any caller,
   * which is for local development only: the server logs a warning when it starts.
   */
  inboxWebhookSecret?: string;
  /**
   * The shared secret of each EHR vendor, by key (several during a rotation). A vendor with a
   * profile but no secret answers 501. `ehrSecretsFromEnvironment(process.env)` reads them from
   * `EHR_WEBHOOK_SECRET_<KEY>`.
   */
  ehrWebhookSecrets?: Readonly<Record<string, string | readonly string[]>>;
  /**
   * More EHR vendor profiles, by key, beside the built-in ones of `@followup/webhooks` (a key
   * given here replaces the built-in profile of that key).
   */
  ehrVendorProfiles?: Readonly<Record<string, VendorProfile>>;
  /** The handler of each vendor's verified webhooks, by key; run after the 202. */
  ehrHandlers?: Readonly<Record<string, EhrWebhookHandler>>;
  /**
   * Timeouts and the connection cap that keep slow clients from holding the server (see
   * {@link DEFAULT_CONNECTION_LIMITS}); each field given replaces its default.
   */
  connectionLimits?: Partial<ConnectionLimits>;
  /**
   * Called after a request committed an outbox event (any kind of `WEBHOOK_EVENT_KINDS`), so that the
   * delivery worker picks it up at once: pass `() => worker.wake()` (see
   * {@link createDeliveryWorker}). Never throws into the request.
   */
  onOutboxEvent?: () => void;
  /**
   * The URL people reach the server at (`--public-url`), such as `https://followup.example.org`:
   * sign-in links are made with it, it is accepted as a same-origin `Origin`, and it is the one
   * server of `/openapi.json`. A request for another host (`Host`, or `X-Forwarded-Host` from a
   * trusted proxy) is answered 421 `misdirected_request`, `GET /healthz` aside: a DNS-rebinding
   * page cannot read a server on loopback. Without it, sign-in links use the origin each request
   * came to, and any host is answered.
   */
  publicUrl?: string;
  /**
   * Trust `X-Forwarded-*` headers from reverse proxies (`--trust-proxy`): the proxies' addresses
   * or CIDR ranges (an array, or one comma-separated string, as Fastify's `trustProxy` takes
   * them), or how many proxies are in front (a hop count: the nearest `n` hops are trusted,
   * whatever their address). Then client addresses (the per-address limits, the sign-in
   * throttle, the audit log) and the protocol (HTTPS: `Secure` `__Host-` cookie) come from them.
   * Default: not trusted. A hop count trusts a client that reaches the server directly as if it
   * were the proxy, and `true` trusts every hop: either lets such a client choose its own address
   * with `X-Forwarded-For`. Prefer addresses; `followup-server start` refuses `true`.
   */
  trustProxy?: boolean | number | string | string[];
  /** Web sessions: idle timeout, absolute lifetime, rotation; see {@link SessionPolicy}. */
  sessions?: Partial<SessionPolicy>;
  /** Failed sign-ins allowed per account and per client address; see {@link SignInThrottlePolicy}. */
  signInThrottle?: Partial<SignInThrottlePolicy>;
  /**
   * Prometheus metrics (see {@link createServerMetrics}): requests, EHR receipts, inbox messages
   * and sign-ins are counted in them. Serve them with {@link listenForMetrics}, on a listener of
   * their own: this server answers `/metrics` with 404. Without it nothing is counted.
   */
  metrics?: ServerMetrics;
  /**
   * OpenTelemetry traces (see {@link createServerTracing}): one server span per request, a child
   * of its `traceparent`. The statements' spans come from the database wrapped with
   * {@link traceStatements}, and the delivery attempts' from the worker's `tracing`. Without it no
   * span is made.
   */
  tracing?: ServerTracing;
  /**
   * Whether webhook endpoints may be registered (API, console) with a loopback, private,
   * link-local or reserved address as their host (`--allow-private-endpoints`, implied by
   * `--demo`), as the delivery worker's `allowPrivate` lets deliveries go there. Off by default:
   * such a URL is 422 `invalid_endpoint_url`. A name is checked at each delivery, not here.
   */
  allowPrivateEndpoints?: boolean;
}

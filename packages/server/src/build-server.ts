import { BODY_LIMIT_BYTES as WIRE_BODY_LIMIT_BYTES } from '@followup/sdk';
import { type VendorProfile, vendorProfiles } from '@followup/webhooks';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { type Clock, systemClock } from './clock.js';
import {
  type ConnectionLimits,
  connectionServerOptions,
  DEFAULT_CONNECTION_LIMITS,
} from './connection-limits.js';
import { createIdGenerator, type IdGenerator } from './ids.js';
import { createOutboxAnnouncer } from './outbox/outbox-announcer.js';
import {
  DEFAULT_ADDRESS_RATE_LIMIT,
  DEFAULT_AUTH_FAILURE_LIMIT,
  installAddressLimits,
} from './plugins/address-limits.js';
import { installAuthentication } from './plugins/authentication.js';
import { installHostHeaderCheck } from './plugins/host-header.js';
import { installIdempotency } from './plugins/idempotency.js';
import { installRequestLogging, type LoggingOptions, loggerOptions } from './plugins/logging.js';
import { installOpenApi } from './plugins/openapi.js';
import { installProblemHandling } from './plugins/problem.js';
import {
  createRateLimiter,
  DEFAULT_RATE_LIMIT,
  type RateLimitOptions,
} from './plugins/rate-limit.js';
import { installRequestIds } from './plugins/request-id.js';
import { installRequestsPerConnection } from './plugins/requests-per-connection.js';
import { responseSerializerCompiler } from './plugins/response-serializer.js';
import {
  createClientErrorHandler,
  MAX_PARAM_LENGTH,
  routerErrorHandler,
} from './plugins/router-errors.js';
import { installShutdownRefusal } from './plugins/shutdown-refusal.js';
import { validatorCompiler } from './plugins/validation-messages.js';
import { auditRoutes } from './routes/audit.js';
import { campaignRoutes } from './routes/campaigns.js';
import { contactRoutes } from './routes/contacts.js';
import { dealRoutes } from './routes/deals.js';
import { deliveryRoutes } from './routes/deliveries.js';
import { type EhrWebhookHandler, ehrWebhookRoutes } from './routes/ehr-webhooks.js';
import { eventRoutes } from './routes/events.js';
import { healthRoutes } from './routes/health.js';
import { inboxRoutes } from './routes/inbox.js';
import { meRoutes } from './routes/me.js';
import { sequenceRoutes } from './routes/sequences.js';
import { userActionRoutes } from './routes/user-actions.js';
import { userRoutes } from './routes/users.js';
import { secretHeaderNames } from './secret-headers.js';
import type { Database } from './storage/database.js';
import { createAccountStore } from './tokens/account-store.js';
import { createTokenCache } from './tokens/token-cache.js';
import { createSessionStore, type SessionPolicy } from './users/sessions.js';
import { createSignInThrottle, type SignInThrottlePolicy } from './users/sign-in-throttle.js';
import { webPages } from './web/pages/index.js';
import { webApp } from './web/web-app.js';
import { installWebSessions } from './web/web-sessions.js';

/** The largest request body accepted: 1 MiB. Larger bodies get 413 `payload_too_large`. */
export const BODY_LIMIT_BYTES: number = WIRE_BODY_LIMIT_BYTES;

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
}

// Fastify 5 trusts no hop for a number (it cannot tell a proxy from a direct client): a hop
// count is the operator's statement that only the proxies reach the server, so it is kept, as
// the nearest `hops` hops (hop 0 is the peer of the socket).
function fastifyTrustProxy(
  trustProxy: NonNullable<BuildServerOptions['trustProxy']>,
): boolean | string | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trustProxy !== 'number') return trustProxy;
  const hops = trustProxy;
  return (_address, hop) => hop < hops;
}

// The origin of a public URL (scheme, host, port): what browsers send in `Origin`.
function publicUrlOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new RangeError('publicUrl must be an absolute http: or https: URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RangeError('publicUrl must be an absolute http: or https: URL.');
  }
  return url.origin;
}

/**
 * Builds the server: a Fastify instance with storage, authentication, errors, request ids and
 * every route wired, not yet listening. Test it with `app.inject()`; serve it with
 * `app.listen()` (the `followup-server start` command does exactly that).
 *
 * Every response carries `X-Request-Id`; every error is `application/problem+json` (RFC 9457)
 * with a `code`; bodies over 1 MiB are refused with 413.
 *
 * @example
 * ```ts
 * const database = await openPGliteDatabase();
 * await migrate(database);
 * const app = buildServer({ database, logger: false });
 * const response = await app.inject({ method: 'GET', url: '/healthz' });
 * ```
 */
export function buildServer(options: BuildServerOptions): FastifyInstance {
  const { database } = options;
  const clock = options.clock ?? systemClock;
  const newId = options.newId ?? createIdGenerator({ now: () => clock.now() });
  const profiles: Readonly<Record<string, VendorProfile>> = Object.assign(
    Object.create(null),
    vendorProfiles,
    options.ehrVendorProfiles,
  );
  // One list of secret-bearing headers, from the contract and the vendor profiles in use.
  const secretHeaders = secretHeaderNames(Object.values(profiles));
  const logger =
    options.logger === false ? false : loggerOptions(options.logger ?? {}, secretHeaders);

  const limits = { ...DEFAULT_CONNECTION_LIMITS, ...options.connectionLimits };
  const app = Fastify({
    logger,
    ...connectionServerOptions(limits),
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: () => newId('req'),
    requestIdHeader: false,
    // One line per request, written when it is answered (installRequestLogging), not two.
    logController: new LogController({
      requestIdLogLabel: 'requestId',
      disableRequestLogging: true,
    }),
    // Every response is problem+json with a request id, whatever failed: the router's own
    // errors and the HTTP parser's (clientError).
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: routerErrorHandler,
    clientErrorHandler: createClientErrorHandler(() => newId('req')),
    // Our own 503 problem+json instead (installShutdownRefusal).
    return503OnClosing: false,
    ...(options.trustProxy === undefined
      ? {}
      : { trustProxy: fastifyTrustProxy(options.trustProxy) }),
  });
  // JSON only: without this, Fastify would also accept text/plain bodies.
  app.server.maxConnections = limits.maxConnections;
  app.removeContentTypeParser('text/plain');
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(responseSerializerCompiler);

  // First of the onRequest hooks: a closing server or a used-up connection runs nothing more.
  installShutdownRefusal(app);
  installRequestsPerConnection(app, limits.maxRequestsPerConnection);
  const publicUrl =
    options.publicUrl === undefined ? undefined : publicUrlOrigin(options.publicUrl);
  installHostHeaderCheck(app, { publicOrigin: publicUrl });
  installRequestIds(app);
  if (logger !== false) installRequestLogging(app);
  installProblemHandling(app);
  installOpenApi(app, { publicOrigin: publicUrl });
  // Verified tokens are remembered briefly; every change to tokens empties it (see the README).
  const tokenCache = createTokenCache({ database, clock });
  app.addHook('onReady', () => tokenCache.ready);
  app.addHook('onClose', () => tokenCache.close());
  const accounts = createAccountStore({ database, clock, newId, tokenCache });
  const rateLimiter =
    options.rateLimit === false
      ? undefined
      : createRateLimiter(options.rateLimit ?? DEFAULT_RATE_LIMIT, clock);
  const sessions = createSessionStore({
    database,
    clock,
    newId,
    ...(options.sessions ? { policy: options.sessions } : {}),
  });
  installWebSessions(app);
  const authFailures = installAddressLimits(app, {
    clock,
    requests: options.addressRateLimit ?? DEFAULT_ADDRESS_RATE_LIMIT,
    authFailures: options.authFailureLimit ?? DEFAULT_AUTH_FAILURE_LIMIT,
  });
  const requireCapability = installAuthentication(
    app,
    accounts,
    rateLimiter,
    { sessions, publicOrigin: publicUrl },
    authFailures,
  );
  app.decorate('requireCapability', requireCapability);
  installIdempotency(app, { database, clock });

  app.register(healthRoutes({ database }));
  app.register(auditRoutes({ database, requireCapability }));
  app.register(meRoutes({ accounts, requireCapability }));
  app.register(eventRoutes({ database, requireCapability }));
  app.register(deliveryRoutes({ database, clock, requireCapability }));
  const resources = { database, clock, newId, requireCapability };
  const onOutboxEvent = options.onOutboxEvent;
  // Other instances' workers hear of committed events through a notification, coalesced.
  const announcer = createOutboxAnnouncer(database, {
    onError: (error) => app.log.warn({ err: error }, 'outbox notification failed'),
  });
  app.addHook('onClose', () => announcer.close());
  const announce = {
    onOutboxEvent: () => {
      try {
        onOutboxEvent?.();
      } catch (error) {
        app.log.error({ err: error }, 'onOutboxEvent failed');
      }
      announcer.announce();
    },
  };
  app.register(contactRoutes({ ...resources, ...announce }));
  app.register(dealRoutes({ ...resources, ...announce }));
  app.register(sequenceRoutes(resources));
  app.register(campaignRoutes(resources));
  app.register(userRoutes(resources));
  app.register(userActionRoutes({ ...resources, publicUrl }));
  const secret = options.inboxWebhookSecret === '' ? undefined : options.inboxWebhookSecret;
  app.register(inboxRoutes({ database, clock, newId, requireCapability, secret, ...announce }));
  app.register(
    ehrWebhookRoutes({
      database,
      clock,
      newId,
      ...announce,
      profiles,
      secretHeaders,
      secrets: options.ehrWebhookSecrets ?? {},
      handlers: options.ehrHandlers ?? {},
    }),
  );
  app.register(
    webApp({
      database,
      clock,
      newId,
      sessions,
      throttle: createSignInThrottle({
        clock,
        ...(options.signInThrottle ? { policy: options.signInThrottle } : {}),
      }),
      publicOrigin: publicUrl,
      pages: webPages.map((page) => page({ database, clock, newId, accounts, publicUrl })),
    }),
  );
  if (secret === undefined) {
    app.addHook('onReady', async () => {
      app.log.warn(
        'INBOX_WEBHOOK_SECRET is not set: POST /api/inbox/webhook accepts requests from anyone. ' +
          'Set it everywhere but on a development machine.',
      );
    });
  }
  return app;
}

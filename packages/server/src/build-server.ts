import { BODY_LIMIT_BYTES as WIRE_BODY_LIMIT_BYTES } from '@followup/sdk';
import { type VendorProfile, vendorProfiles } from '@followup/webhooks';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import type { BuildServerOptions } from './build-server-options.js';
import { systemClock } from './clock.js';
import { connectionServerOptions, DEFAULT_CONNECTION_LIMITS } from './connection-limits.js';
import { createIdGenerator } from './ids.js';
import { createOutboxAnnouncer } from './outbox/outbox-announcer.js';
import {
  DEFAULT_ADDRESS_RATE_LIMIT,
  DEFAULT_AUTH_FAILURE_LIMIT,
  installAddressLimits,
} from './plugins/address-limits.js';
import { installAuthentication } from './plugins/authentication.js';
import { installHostHeaderCheck } from './plugins/host-header.js';
import { installIdempotency } from './plugins/idempotency.js';
import { installJsonBodyParser } from './plugins/json-body.js';
import { installRequestLogging, loggerOptions } from './plugins/logging.js';
import { installOpenApi } from './plugins/openapi.js';
import { installProblemHandling } from './plugins/problem.js';
import { createRateLimiter, DEFAULT_RATE_LIMIT } from './plugins/rate-limit.js';
import { installRequestIds } from './plugins/request-id.js';
import { installRequestMetrics } from './plugins/request-metrics.js';
import { installRequestTracing } from './plugins/request-tracing.js';
import { installRequestsPerConnection } from './plugins/requests-per-connection.js';
import { responseSerializerCompiler } from './plugins/response-serializer.js';
import {
  createClientErrorHandler,
  MAX_PARAM_LENGTH,
  routerErrorHandler,
} from './plugins/router-errors.js';
import { installShutdownRefusal } from './plugins/shutdown-refusal.js';
import { installUnusedConnectionClosing } from './plugins/unused-connections.js';
import { validatorCompiler } from './plugins/validation-messages.js';
import { auditRoutes } from './routes/audit.js';
import { campaignRoutes } from './routes/campaigns.js';
import { contactRoutes } from './routes/contacts.js';
import { dealRoutes } from './routes/deals.js';
import { deliveryRoutes } from './routes/deliveries.js';
import { ehrWebhookRoutes } from './routes/ehr-webhooks.js';
import { eventRoutes } from './routes/events.js';
import { healthRoutes } from './routes/health.js';
import { inboxRoutes } from './routes/inbox.js';
import { meRoutes } from './routes/me.js';
import { replayRoutes } from './routes/replays.js';
import { sequenceRoutes } from './routes/sequences.js';
import { userActionRoutes } from './routes/user-actions.js';
import { userRoutes } from './routes/users.js';
import { webhookEndpointRoutes } from './routes/webhook-endpoints.js';
import { webhookPortalRoutes } from './routes/webhook-portal.js';
import { secretHeaderNames } from './secret-headers.js';
import { watchDatabaseOutages } from './storage/database-reachability.js';
import { SCHEMA_VERSION } from './storage/migrations/index.js';
import { createAccountStore } from './tokens/account-store.js';
import { createTokenCache } from './tokens/token-cache.js';
import { createSessionStore } from './users/sessions.js';
import { createSignInThrottle } from './users/sign-in-throttle.js';
import { consoleFallback } from './web/console-fallback.js';
import { webPages } from './web/pages/index.js';
import { portalPages } from './web/portal/portal-pages.js';
import { consoleSecurityHeaders, webApp } from './web/web-app.js';
import { installWebSessions } from './web/web-sessions.js';

/** The largest request body accepted: 1 MiB. Larger bodies get 413 `payload_too_large`. */
export const BODY_LIMIT_BYTES: number = WIRE_BODY_LIMIT_BYTES;

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
  // On PostgreSQL an outage is logged once when it begins and once when it ends.
  const database = watchDatabaseOutages(options.database, () => app.log);
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
  app.server.maxConnections = limits.maxConnections;
  // JSON only: without this, Fastify would also accept text/plain bodies.
  app.removeContentTypeParser('text/plain');
  installJsonBodyParser(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(responseSerializerCompiler);

  // First of the onRequest hooks: a closing server or a used-up connection runs nothing more.
  const isClosing = installShutdownRefusal(app);
  installUnusedConnectionClosing(app);
  installRequestsPerConnection(app, limits.maxRequestsPerConnection);
  const publicUrl =
    options.publicUrl === undefined ? undefined : publicUrlOrigin(options.publicUrl);
  installHostHeaderCheck(app, { publicOrigin: publicUrl });
  installRequestIds(app);
  // Before the other hooks, so that their statements are spans of the request's.
  if (options.tracing) installRequestTracing(app, options.tracing);
  if (logger !== false) installRequestLogging(app);
  const { metrics } = options;
  if (metrics) installRequestMetrics(app, metrics);
  // An unknown console URL asked for by a browser gets the console's 404 or 405 page (see
  // src/web/console-fallback.ts); the fallback needs the sessions, made below.
  installProblemHandling(app, {
    notFoundPage: (request, reply) => notFoundPage(request, reply),
    clock,
  });
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
  const notFoundPage = consoleFallback({ app, sessions, securityHeaders: consoleSecurityHeaders });
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

  app.register(healthRoutes({ database, schemaVersion: SCHEMA_VERSION, isClosing }));
  app.register(auditRoutes({ database, requireCapability }));
  app.register(meRoutes({ accounts, requireCapability }));
  app.register(eventRoutes({ database, requireCapability }));
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
  const allowPrivateEndpoints = options.allowPrivateEndpoints ?? false;
  app.register(webhookEndpointRoutes({ ...resources, ...announce, allowPrivateEndpoints }));
  app.register(deliveryRoutes({ ...resources, ...announce }));
  app.register(replayRoutes({ ...resources, ...announce }));
  app.register(webhookPortalRoutes({ ...resources, publicUrl }));
  app.register(sequenceRoutes(resources));
  app.register(campaignRoutes(resources));
  app.register(userRoutes(resources));
  app.register(userActionRoutes({ ...resources, publicUrl }));
  const secret = options.inboxWebhookSecret === '' ? undefined : options.inboxWebhookSecret;
  app.register(
    inboxRoutes({
      ...{ database, clock, newId, requireCapability, secret, ...announce },
      onInboxMessage: metrics?.observeInboxMessage,
    }),
  );
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
      onReceipt: metrics?.observeReceipt,
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
      onSignInAttempt: metrics?.observeSignIn,
      // The subscriber portal is a family of pages of its own (web/portal/), over web/pages/'s
      // helpers; listed here so that web/pages/ does not import it back.
      pages: [...webPages, portalPages].map((page) =>
        page({
          database,
          clock,
          newId,
          accounts,
          publicUrl,
          allowPrivateEndpoints,
          onOutboxEvent: announce.onOutboxEvent,
        }),
      ),
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

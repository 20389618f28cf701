import { buildServer } from '../build-server.js';
import { systemClock } from '../clock.js';
import { warmUpDelivery } from '../delivery/delivery-warm-up.js';
import { createDeliveryWorker } from '../delivery/delivery-worker.js';
import { demoAccountToken } from '../demo/demo-account.js';
import { type SeededDemoData, seedDemoData } from '../demo/demo-data.js';
import { demoUserSignInLink } from '../demo/demo-user.js';
import { createIdGenerator } from '../ids.js';
import { listenForMetrics, type MetricsListener } from '../metrics/metrics-listener.js';
import { createServerMetrics } from '../metrics/server-metrics.js';
import { type RetentionSchedule, startRetentionSchedule } from '../retention/retention.js';
import { ehrSecretsFromEnvironment } from '../routes/ehr-webhook-secrets.js';
import { isDatabaseUnreachable, watchDatabaseOutages } from '../storage/database-reachability.js';
import { holdsAnyContact } from '../stores/demo-seed-store.js';
import { createAccountStore } from '../tokens/account-store.js';
import { startTracing } from '../tracing/start-tracing.js';
import { traceStatements } from '../tracing/traced-database.js';
import type { CliIo, OpenedDatabase } from './cli-io.js';
import { deliveryOptions } from './delivery-options.js';
import { DEMO_EHR_VENDOR, newDemoEhrSecret } from './demo-ehr-webhook.js';
import { edgeOptions, retentionOptions } from './edge-options.js';
import { logOptions } from './log-options.js';
import { metricsAddress } from './metrics-options.js';
import { type OperatorChannel, openOperatorChannel } from './operator-channel.js';
import { announcementText } from './start-announcement.js';
import {
  isLoopbackHost,
  isTrue,
  parsePort,
  sessionPolicy,
  unsafeNoFsync,
} from './start-option-parsers.js';
import { parseTrustProxy } from './trust-proxy.js';
import { type CliOptions, type OptionName, UsageError } from './usage.js';
import { parsePublicUrl } from './user-commands.js';

/** Seconds since this process started, to a tenth. */
function secondsSinceStart(): number {
  return Math.round(performance.now() / 100) / 10;
}

/** @internal The options `start` takes, beside `GLOBAL_OPTIONS` (see `usage`). */
export const START_OPTIONS: readonly OptionName[] = [
  'port',
  'host',
  'demo',
  'allow-private-endpoints',
  'allow-insecure-endpoints',
  'delivery-retry-delays',
  'delivery-timeout',
  'delivery-concurrency',
  'endpoint-concurrency',
  'auto-disable-after',
  'public-url',
  'trust-proxy',
  'session-idle',
  'session-lifetime',
  'allow-open-inbox',
  'rate-limit',
  'address-rate-limit',
  'receipt-retention',
  'delivery-retention',
  'tombstone-retention',
  'headers-timeout',
  'request-timeout',
  'keep-alive-timeout',
  'max-connections',
  'auth-failure-limit',
  'metrics-port',
  'metrics-host',
  'log-level',
  'log-format',
];

/** @internal How many contacts `start --demo` seeds (and half as many deals). */
export const DEMO_CONTACTS = 300;

/**
 * @internal `followup-server start`: listen until the signal, then shut down gracefully (stop
 * accepting, let in-flight requests finish, close the storage).
 */
export async function startCommand(
  values: CliOptions,
  io: CliIo,
  storage: { open: () => Promise<OpenedDatabase>; dataDir: string | undefined },
): Promise<number> {
  const port = parsePort(values.port ?? io.env.PORT ?? '3000');
  const host = values.host ?? io.env.HOST ?? '127.0.0.1';
  const inboxWebhookSecret = io.env.INBOX_WEBHOOK_SECRET;
  const allowOpenInbox = values['allow-open-inbox'] === true || isTrue(io.env.ALLOW_OPEN_INBOX);
  if (!inboxWebhookSecret && !isLoopbackHost(host) && !allowOpenInbox) {
    throw new UsageError(
      `On ${host}, beyond this machine, POST /api/inbox/webhook would store anyone's messages: ` +
        'set INBOX_WEBHOOK_SECRET, or pass --allow-open-inbox (ALLOW_OPEN_INBOX=true) to run it open.',
    );
  }
  const delivery = deliveryOptions(values, io.env);
  const publicUrlText = values['public-url'] ?? io.env.PUBLIC_URL;
  const configuredPublicUrl =
    publicUrlText === undefined ? undefined : parsePublicUrl(publicUrlText);
  // An empty TRUST_PROXY is unset (as a compose file writes it); an empty --trust-proxy= is not.
  const trustProxy = parseTrustProxy(values['trust-proxy'] ?? (io.env.TRUST_PROXY || undefined));
  const sessions = sessionPolicy(
    values['session-idle'] ?? io.env.SESSION_IDLE_TIMEOUT,
    values['session-lifetime'] ?? io.env.SESSION_LIFETIME,
  );
  const limits = edgeOptions(values, io.env);
  const retention = retentionOptions(values, io.env);
  const metricsAt = metricsAddress(values, io.env, port);
  const logging = logOptions(values, io.env, io.stderr);
  const opened = await storage.open();
  const { release } = opened;
  let app: ReturnType<typeof buildServer> | undefined;
  // The OpenTelemetry SDK is loaded only when the OTEL_* variables ask for traces.
  const tracing = await startTracing(io.env);
  const traced = tracing ? traceStatements(opened.database, tracing) : opened.database;
  // One watch for the server and the worker, so that an outage is logged once, not by each.
  const database = watchDatabaseOutages(traced, () => app?.log);
  const onMetricsError = (error: unknown) => app?.log.warn({ err: error }, 'metrics read failed');
  const metrics = metricsAt && createServerMetrics({ database, onError: onMetricsError });
  const worker = createDeliveryWorker({
    database,
    ...delivery,
    ...(metrics ? { onAttempt: metrics.observeAttempt } : {}),
    ...(tracing ? { tracing } : {}),
    onError: (error) =>
      isDatabaseUnreachable(error) ||
      app?.log.error({ err: error }, 'outbound delivery failed to run'),
  });
  const ehrWebhookSecrets = ehrSecretsFromEnvironment(io.env);
  // --demo: a secret for one EHR vendor when none is configured, so its webhooks can be tried.
  let demoEhrSecret: string | undefined;
  if (values.demo && ehrWebhookSecrets[DEMO_EHR_VENDOR] === undefined) {
    demoEhrSecret = newDemoEhrSecret();
    ehrWebhookSecrets[DEMO_EHR_VENDOR] = demoEhrSecret;
  }
  app = buildServer({
    database,
    onOutboxEvent: () => worker.wake(),
    logger: logging,
    ...(inboxWebhookSecret ? { inboxWebhookSecret } : {}),
    ehrWebhookSecrets,
    ...(configuredPublicUrl ? { publicUrl: configuredPublicUrl } : {}),
    ...(trustProxy === undefined ? {} : { trustProxy }),
    ...(sessions ? { sessions } : {}),
    ...(metrics ? { metrics } : {}),
    ...(tracing ? { tracing } : {}),
    allowPrivateEndpoints: delivery.allowPrivate === true,
    ...limits,
  });
  let channel: OperatorChannel | undefined;
  let metricsListener: MetricsListener | undefined;
  let schedule: RetentionSchedule | undefined;
  try {
    let demoToken: string | undefined;
    let demoData: SeededDemoData | undefined;
    if (values.demo) {
      const accounts = createAccountStore({ database });
      demoToken = (await demoAccountToken(database, accounts)).token;
      // Demo contacts and deals once: a restart with --demo does not add more.
      if (!(await holdsAnyContact(database)))
        demoData = await seedDemoData(database, { contacts: DEMO_CONTACTS });
    }
    // How long a newcomer waits: from the process's start to the first answered request.
    let firstAnswered = false;
    app.addHook('onResponse', (_request, _reply, done) => {
      if (!firstAnswered) {
        firstAnswered = true;
        app?.log.info({ secondsSinceStart: secondsSinceStart() }, 'first request answered');
      }
      done();
    });
    // On PGlite, the first requests find the create and delivery path compiled (see
    // delivery-warm-up.ts), on the database as opened: no span, no outage log of its own. A
    // failure costs only that: the server starts as it would have.
    if (database.driver === 'pglite') {
      await warmUpDelivery(opened.database, {
        clock: systemClock,
        newId: createIdGenerator({ now: () => systemClock.now() }),
      }).catch((error: unknown) => app?.log.warn({ err: error }, 'the warm-up failed'));
    }
    const address = await app.listen({ port, host });
    if (metrics && metricsAt) {
      metricsListener = await listenForMetrics(metrics, { ...metricsAt, onError: onMetricsError });
    }
    const readySeconds = secondsSinceStart();
    if (database.driver === 'pglite' && unsafeNoFsync(values, io.env)) {
      app.log.warn(
        'writes are acknowledged before they reach the disk (--unsafe-no-fsync): a power cut or ' +
          'a kernel crash can lose acknowledged writes and corrupt the data directory',
      );
    }
    worker.start();
    // Records outsiders can make us keep are deleted by age: hourly, and once now.
    schedule = startRetentionSchedule({
      database,
      clock: systemClock,
      policy: retention,
      onPruned: (pruned) => {
        if (Object.values(pruned).some((count) => count > 0)) app?.log.info({ pruned }, 'pruned');
      },
      onError: (error) => app?.log.error({ err: error }, 'retention run failed'),
    });
    // PGlite's directory is ours alone: operator commands reach it through this channel.
    if (storage.dataDir !== undefined) {
      channel = await openOperatorChannel({
        dataDir: storage.dataDir,
        database,
        publicUrl: configuredPublicUrl ?? new URL(address).origin,
        onCommand: () => worker.wake(),
      });
    }
    const url = new URL(address);
    // With --public-url, requests for another host are answered 421: the commands printed to
    // try name it.
    const publicUrl = configuredPublicUrl ?? url.origin;
    // --demo: a sign-in link for the demo ADMIN user (the same user on every restart).
    const demoSignIn = values.demo
      ? await demoUserSignInLink(database, {
          clock: systemClock,
          newId: createIdGenerator({ now: () => systemClock.now() }),
          publicUrl,
        })
      : undefined;
    // --demo: whatever the first retention run logs comes before the block, which stays last.
    if (values.demo) await schedule.runNow();
    io.stdout.write(
      announcementText(
        {
          origin: url.origin,
          publicUrl,
          driver: database.driver,
          readySeconds,
          ...(metricsListener ? { metricsUrl: `${metricsListener.url}/metrics` } : {}),
          ...(demoToken
            ? {
                demo: {
                  token: demoToken,
                  ...(demoSignIn ? { signIn: demoSignIn } : {}),
                  ...(demoData ? { seeded: demoData } : {}),
                  ...(demoEhrSecret ? { ehrSecret: demoEhrSecret } : {}),
                },
              }
            : {}),
        },
        { json: values.json === true },
      ),
    );
    await new Promise<void>((resolve) => {
      if (!io.signal || io.signal.aborted) return resolve();
      io.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  } finally {
    await channel?.close();
    await metricsListener?.close();
    // Stop taking requests, then let the attempts in flight finish, then close the storage.
    await app.close();
    await schedule?.stop();
    await worker.close();
    await release();
    // Last, so that the spans of the attempts that just ended are exported too.
    await tracing?.shutdown();
  }
  return 0;
}

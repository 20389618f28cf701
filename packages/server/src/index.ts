/**
 * The reference server of the FollowUp service interface: build it with `buildServer`, store it
 * in embedded PGlite or PostgreSQL, and manage service accounts and tokens.
 *
 * @packageDocumentation
 */

// From the SDK's wire contract: the header the inbox webhook's shared secret comes in, and the
// literal prefix of every token.
export { INBOX_SECRET_HEADER, TOKEN_PREFIX } from '@followup/sdk';
export {
  type AuditPage,
  type ListAuditEntriesOptions,
  listAuditEntries,
  recordAuditEntry,
} from './audit/audit-log.js';
export { BODY_LIMIT_BYTES, buildServer } from './build-server.js';
export type { BuildServerOptions } from './build-server-options.js';
export {
  type Capability,
  capabilities,
  hasCapability,
  roleCapabilities,
} from './capabilities.js';
export type { CliIo } from './cli/cli-io.js';
export type { TerminalSink } from './cli/progress-bar.js';
export { runCli } from './cli/run-cli.js';
export { type Clock, systemClock } from './clock.js';
export { type ConnectionLimits, DEFAULT_CONNECTION_LIMITS } from './connection-limits.js';
export {
  type DeliveryAttemptObservation,
  WEBHOOK_ATTEMPT_OUTCOMES,
  type WebhookAttemptOutcome,
} from './delivery/attempt-outcome.js';
export { createDeliveryWorker } from './delivery/delivery-worker.js';
export {
  DEFAULT_ATTEMPT_TIMEOUT_MS,
  DEFAULT_DELIVERY_CONCURRENCY,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_WAKE_INTERVAL_MS,
  type DeliveryWorker,
  type DeliveryWorkerOptions,
} from './delivery/delivery-worker-options.js';
export type { AttemptTimer } from './delivery/post-delivery.js';
export {
  DEFAULT_RETRY_DELAYS_SECONDS,
  MAX_RETRY_DELAYS,
  parseRetryDelays,
} from './delivery/retry-schedule.js';
export { type SeedDemoDataOptions, type SeededDemoData, seedDemoData } from './demo/demo-data.js';
export { FollowUpServerError, type FollowUpServerErrorOptions } from './errors.js';
export {
  createIdGenerator,
  type IdGenerator,
  type IdGeneratorOptions,
  type IdPrefix,
} from './ids.js';
export {
  listenForMetrics,
  type MetricsListener,
  type MetricsListenerOptions,
} from './metrics/metrics-listener.js';
export {
  createServerMetrics,
  type ObservedRequest,
  type ServerMetrics,
  type ServerMetricsOptions,
  type SignInOutcome,
} from './metrics/server-metrics.js';
export {
  DEFAULT_ADDRESS_RATE_LIMIT,
  DEFAULT_AUTH_FAILURE_LIMIT,
} from './plugins/address-limits.js';
export type { Principal, RequireCapability } from './plugins/authentication.js';
export { IDEMPOTENCY_KEY_HEADER } from './plugins/idempotency.js';
export {
  LOG_FORMATS,
  LOG_LEVELS,
  type LogFormat,
  type LoggingOptions,
  type LogLevel,
  type TextSink,
} from './plugins/logging.js';
export type { ProblemDetails } from './plugins/problem.js';
export {
  DEFAULT_RATE_LIMIT,
  type RateLimitOptions,
} from './plugins/rate-limit.js';
export { REQUEST_ID_HEADER } from './plugins/request-id.js';
export { ProblemError, type ProblemErrorOptions, type ProblemFieldError } from './problem-error.js';
export {
  DEFAULT_RETENTION,
  MAX_RETENTION_DAYS,
  type PruneResult,
  pruneExpired,
  type RetentionPolicy,
  type RetentionSchedule,
  type RetentionScheduleOptions,
  startRetentionSchedule,
} from './retention/retention.js';
export { ehrSecretsFromEnvironment, ehrSecretVariable } from './routes/ehr-webhook-secrets.js';
export {
  type EhrWebhookEvent,
  type EhrWebhookHandler,
  MAX_REJECTED_BODY_BYTES,
  type ReceiptVerdict,
} from './routes/ehr-webhooks.js';
export { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT } from './routes/list-query.js';
export { CONTRACT_SECRET_HEADERS, secretHeaderNames } from './secret-headers.js';
export {
  type DataDirectoryLock,
  LOCK_FILE_NAME,
  type LockDataDirectoryOptions,
  lockDataDirectory,
} from './storage/data-directory-lock.js';
export type {
  Database,
  DatabaseDriver,
  ListenOptions,
  Queryable,
  QueryResult,
} from './storage/database.js';
export { MAX_QUEUED_QUERIES } from './storage/database-busy.js';
export { type MigrateResult, migrate } from './storage/migrate.js';
export { openPGliteDatabase, type PGliteDatabaseOptions } from './storage/pglite-database.js';
export {
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_STATEMENT_TIMEOUT_MS,
  openPostgresDatabase,
  type PostgresDatabaseOptions,
} from './storage/postgres-database.js';
export type {
  AuditActor,
  AuditDependencies,
  AuditEntry,
  AuditTarget,
  NewAuditEntry,
} from './stores/audit-store.js';
export { IDEMPOTENCY_WINDOW_MS } from './stores/idempotency-store.js';
export {
  type AccountStore,
  type AccountStoreOptions,
  createAccountStore,
} from './tokens/account-store.js';
export type {
  DisabledAccount,
  IssuedToken,
  IssueTokenOptions,
  RolledToken,
  ServiceAccount,
  ServiceAccountSummary,
  TokenAccepted,
  TokenFailureCode,
  TokenInfo,
  TokenRefused,
  TokenState,
  TokenVerification,
} from './tokens/account-types.js';
export { type Role, roles } from './tokens/role.js';
export { type ParsedToken, parseToken } from './tokens/token-format.js';
export { MAX_ROLL_GRACE_SECONDS, MAX_TOKEN_LABEL_LENGTH } from './tokens/token-limits.js';
export {
  createServerTracing,
  type ServerTracing,
  type ServerTracingOptions,
  TRACER_NAME,
} from './tracing/server-tracing.js';
export { traceStatements } from './tracing/traced-database.js';
export {
  DEFAULT_SESSION_POLICY,
  type SessionPolicy,
  type SignedInUser,
} from './users/sessions.js';
export {
  type PrunedSignInRecords,
  type PruneSignInRecordsOptions,
  pruneSignInRecords,
} from './users/sign-in-links.js';
export {
  DEFAULT_SIGN_IN_THROTTLE,
  type SignInThrottlePolicy,
} from './users/sign-in-throttle.js';

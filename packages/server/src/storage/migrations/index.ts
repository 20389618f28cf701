import type { Queryable } from '../database.js';
import { initialSchema } from './0001-initial.js';
import { idempotencyPending } from './0002-idempotency-pending.js';
import { outboundDelivery } from './0003-outbound-delivery.js';
import { webSignIn } from './0004-web-sign-in.js';
import { ehrReceiptBounds } from './0005-ehr-receipt-bounds.js';
import { idempotencyLease } from './0006-idempotency-lease.js';
import { listKeys } from './0007-list-keys.js';
import { eventFeed } from './0008-event-feed.js';
import { tokenManagement } from './0009-token-management.js';
import { deliveryHygiene } from './0018-delivery-hygiene.js';
import { webFlashes } from './0019-web-flashes.js';
import { tombstoneRetention } from './0021-tombstone-retention.js';
import { transactionChangeOrder } from './0025-transaction-change-order.js';
import { userEmailCase, userEmailCaseRefusal } from './0026-user-email-case.js';
import { deliveryAutovacuum, deliveryHotPaths } from './0027-delivery-hot-paths.js';
import { webhookEndpointPolicy } from './0028-webhook-endpoint-policy.js';
import { webhookReplays } from './0029-webhook-replays.js';
import { deliveryPayload } from './0030-delivery-payload.js';
import { subscriberPortal } from './0031-subscriber-portal.js';
import { outboxTraceContext } from './0032-outbox-trace-context.js';
import { endpointRateBudget } from './0033-endpoint-rate-budget.js';
import { dealTitleSearch } from './0034-deal-title-search.js';
import { auditEntriesByTarget } from './0035-audit-entries-by-target.js';
import { deliveryAttemptsByStart } from './0036-delivery-attempts-by-start.js';

/** @internal One versioned migration. */
export interface Migration {
  /** Applied in ascending order, each once. */
  version: number;
  name: string;
  sql: string;
  /**
   * Run after `sql` on PostgreSQL only: settings that PGlite has no use for (it runs no
   * autovacuum), or that it does not have.
   */
  postgresSql?: string;
  /**
   * Run before `sql`, in the same transaction: a message means the data must be mended by hand
   * first, and `migrate` applies nothing and throws `migration_refused` with it.
   */
  refusal?: (queryable: Queryable) => Promise<string | undefined>;
}

/**
 * @internal Every migration, oldest first. Never edit one that has been released: add the next
 * version instead.
 */
export const migrations: readonly Migration[] = [
  { version: 1, name: 'initial', sql: initialSchema },
  { version: 2, name: 'idempotency-pending', sql: idempotencyPending },
  { version: 3, name: 'outbound-delivery', sql: outboundDelivery },
  { version: 4, name: 'web-sign-in', sql: webSignIn },
  { version: 5, name: 'ehr-receipt-bounds', sql: ehrReceiptBounds },
  { version: 6, name: 'idempotency-lease', sql: idempotencyLease },
  { version: 7, name: 'list-keys', sql: listKeys },
  { version: 8, name: 'event-feed', sql: eventFeed },
  { version: 9, name: 'token-management', sql: tokenManagement },
  { version: 18, name: 'delivery-hygiene', sql: deliveryHygiene },
  { version: 19, name: 'web-flashes', sql: webFlashes },
  { version: 21, name: 'tombstone-retention', sql: tombstoneRetention },
  { version: 25, name: 'transaction-change-order', sql: transactionChangeOrder },
  { version: 26, name: 'user-email-case', sql: userEmailCase, refusal: userEmailCaseRefusal },
  {
    version: 27,
    name: 'delivery-hot-paths',
    sql: deliveryHotPaths,
    postgresSql: deliveryAutovacuum,
  },
  { version: 28, name: 'webhook-endpoint-policy', sql: webhookEndpointPolicy },
  { version: 29, name: 'webhook-replays', sql: webhookReplays },
  { version: 30, name: 'delivery-payload', sql: deliveryPayload },
  { version: 31, name: 'subscriber-portal', sql: subscriberPortal },
  { version: 32, name: 'outbox-trace-context', sql: outboxTraceContext },
  { version: 33, name: 'endpoint-rate-budget', sql: endpointRateBudget },
  { version: 34, name: 'deal-title-search', sql: dealTitleSearch },
  { version: 35, name: 'audit-entries-by-target', sql: auditEntriesByTarget },
  { version: 36, name: 'delivery-attempts-by-start', sql: deliveryAttemptsByStart },
];

/** @internal The schema version of this code: its newest migration's (`GET /readyz` checks it). */
export const SCHEMA_VERSION: number = Math.max(...migrations.map((migration) => migration.version));

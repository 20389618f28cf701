import { recordAuditEntry } from '../audit/audit-log.js';
import { type Clock, systemClock } from '../clock.js';
import { FollowUpServerError } from '../errors.js';
import { createIdGenerator, type IdGenerator } from '../ids.js';
import type { Database } from '../storage/database.js';
import type { AuditActor } from '../stores/audit-store.js';
import {
  type DeliveryRow,
  findDeliveryRow,
  listDeliveryAttemptRows,
  listDeliveryRows,
  makeDeliveryDue,
  makeFailedDeliveriesDue,
} from '../stores/delivery-store.js';
import { endpointExists } from '../stores/webhook-endpoint-store.js';

/** The states of a delivery. */
export const deliveryStates = ['pending', 'delivered', 'dead'] as const;

/** @internal A delivery as the operator sees it. */
export interface DeliveryInfo {
  id: string;
  eventId: string;
  event: string;
  endpointId: string;
  state: (typeof deliveryStates)[number];
  attempts: number;
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

/** @internal One attempt of a delivery. */
export interface DeliveryAttemptInfo {
  startedAt: string;
  durationMs: number;
  status: number | null;
  error: string | null;
  /**
   * The first 4 KiB of the subscriber's answer, as UTF-8 (bytes that are not become U+FFFD), or
   * `null` when it sent no body.
   */
  responseBody: string | null;
}

/** @internal A delivery's row as the operator, the API and the portal see it. */
export function deliveryInfoOf(row: DeliveryRow): DeliveryInfo {
  return {
    id: row.id,
    eventId: row.event_id,
    event: row.event,
    endpointId: row.endpoint_id,
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastStatus: row.last_status,
    lastError: row.last_error,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
  };
}

/**
 * @internal The operator's view of deliveries: list them, show one with its attempts, send one
 * again (`delivery.retried`) or every failed one of an endpoint (`deliveries.recovered`), audited,
 * by the operator unless another actor is passed. The CLI, `/api` and the web pages share it.
 */
export function createDeliveryStore(options: {
  database: Database;
  clock?: Clock;
  newId?: IdGenerator;
}) {
  const { database } = options;
  const clock = options.clock ?? systemClock;
  const newId = options.newId ?? createIdGenerator({ now: () => clock.now() });
  return {
    /**
     * Deliveries oldest first (or newest first), of one state and one endpoint or all; at most
     * `limit` (default 1000), after skipping `offset`.
     */
    async list(
      filter: {
        state?: string;
        endpointId?: string;
        limit?: number;
        offset?: number;
        newestFirst?: boolean;
      } = {},
    ): Promise<DeliveryInfo[]> {
      if (
        filter.state !== undefined &&
        !deliveryStates.includes(filter.state as DeliveryInfo['state'])
      ) {
        throw new FollowUpServerError({
          code: 'invalid_state',
          message: `The state is one of ${deliveryStates.join(', ')}.`,
        });
      }
      const rows = await listDeliveryRows(database, {
        state: filter.state ?? null,
        limit: filter.limit ?? 1_000,
        endpointId: filter.endpointId ?? null,
        offset: filter.offset ?? 0,
        newestFirst: filter.newestFirst ?? false,
      });
      return rows.map(deliveryInfoOf);
    },

    /** One delivery, or `undefined`. */
    async get(id: string): Promise<DeliveryInfo | undefined> {
      const row = await findDeliveryRow(database, id);
      return row ? deliveryInfoOf(row) : undefined;
    },

    /** The attempts of a delivery, oldest first: when, how long, the status or the error. */
    async attempts(id: string): Promise<DeliveryAttemptInfo[]> {
      const rows = await listDeliveryAttemptRows(database, id);
      return rows.map((row) => ({
        startedAt: row.started_at,
        durationMs: row.duration_ms,
        status: row.status,
        error: row.error,
        responseBody:
          row.response_excerpt === null ? null : Buffer.from(row.response_excerpt).toString('utf8'),
      }));
    },

    /**
     * Makes a delivery due now, with the same id: whatever its state, or, with
     * `exceptDelivered`, only one not delivered yet (a delivered one is `delivery_delivered`).
     * A dead delivery gets one more attempt (its schedule is spent: if that fails, it is dead
     * again).
     */
    async retry(
      id: string,
      actor: AuditActor = { type: 'operator' },
      options: { exceptDelivered?: boolean } = {},
    ): Promise<DeliveryInfo> {
      return database.transaction(async (transaction) => {
        const row = await makeDeliveryDue(transaction, {
          id,
          now: new Date(clock.now()),
          exceptDelivered: options.exceptDelivered === true,
        });
        if (!row) {
          const existing = await findDeliveryRow(transaction, id);
          throw existing
            ? new FollowUpServerError({
                code: 'delivery_delivered',
                message: `The delivery ${id} was delivered already: force it to send it again.`,
              })
            : new FollowUpServerError({
                code: 'delivery_not_found',
                message: `No delivery ${id}.`,
              });
        }
        await recordAuditEntry(
          transaction,
          {
            action: 'delivery.retried',
            actor,
            target: { type: 'delivery', id },
            metadata: { endpointId: row.endpoint_id, previousState: row.previous_state },
          },
          { clock, newId },
        );
        return deliveryInfoOf(row);
      });
    },

    /**
     * Sends again every failed delivery of an endpoint created at or after `since`: the dead
     * ones and the pending ones that have failed at least once, all due now, in the order they
     * were created (their ids are time-ordered). Audited as `deliveries.recovered`.
     *
     * @returns The deliveries made due, oldest first.
     */
    async recover(
      input: { endpointId: string; since: Date },
      actor: AuditActor = { type: 'operator' },
    ): Promise<DeliveryInfo[]> {
      if (Number.isNaN(input.since.getTime())) {
        throw new FollowUpServerError({
          code: 'invalid_since',
          message: 'since is an ISO 8601 time, such as 2026-03-01T00:00:00Z.',
        });
      }
      return database.transaction(async (transaction) => {
        if (!(await endpointExists(transaction, input.endpointId))) {
          throw new FollowUpServerError({
            code: 'endpoint_not_found',
            message: `No webhook endpoint ${input.endpointId}.`,
          });
        }
        const rows = await makeFailedDeliveriesDue(transaction, {
          endpointId: input.endpointId,
          since: input.since,
          now: new Date(clock.now()),
        });
        await recordAuditEntry(
          transaction,
          {
            action: 'deliveries.recovered',
            actor,
            target: { type: 'webhook_endpoint', id: input.endpointId },
            metadata: { since: input.since.toISOString(), deliveries: rows.length },
          },
          { clock, newId },
        );
        return rows.map(deliveryInfoOf);
      });
    },
  };
}

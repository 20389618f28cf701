import { type AuditActor, recordAuditEntry } from '../audit/audit-log.js';
import { type Clock, systemClock } from '../clock.js';
import { FollowUpServerError } from '../errors.js';
import { createIdGenerator, type IdGenerator } from '../ids.js';
import type { Database } from '../storage/database.js';

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

interface DeliveryRow {
  id: string;
  event_id: string;
  event: string;
  endpoint_id: string;
  state: DeliveryInfo['state'];
  attempts: number;
  next_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

function toInfo(row: DeliveryRow): DeliveryInfo {
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

const columns = `d.id, d.event_id, ev.event, d.endpoint_id, d.state, d.attempts, d.next_attempt_at,
  d.last_status, d.last_error, d.created_at, d.delivered_at`;

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
      const order = filter.newestFirst ? 'd.created_at DESC, d.id DESC' : 'd.created_at, d.id';
      const { rows } = await database.query<DeliveryRow>(
        `SELECT ${columns} FROM deliveries AS d JOIN outbox_events AS ev ON ev.id = d.event_id
          WHERE ($1::text IS NULL OR d.state = $1) AND ($3::text IS NULL OR d.endpoint_id = $3)
          ORDER BY ${order} LIMIT $2 OFFSET $4`,
        [
          filter.state ?? null,
          filter.limit ?? 1_000,
          filter.endpointId ?? null,
          filter.offset ?? 0,
        ],
      );
      return rows.map(toInfo);
    },

    /** One delivery, or `undefined`. */
    async get(id: string): Promise<DeliveryInfo | undefined> {
      const { rows } = await database.query<DeliveryRow>(
        `SELECT ${columns} FROM deliveries AS d JOIN outbox_events AS ev ON ev.id = d.event_id
          WHERE d.id = $1`,
        [id],
      );
      return rows[0] ? toInfo(rows[0]) : undefined;
    },

    /** The attempts of a delivery, oldest first: when, how long, the status or the error. */
    async attempts(id: string): Promise<DeliveryAttemptInfo[]> {
      const { rows } = await database.query<{
        started_at: string;
        duration_ms: number;
        status: number | null;
        error: string | null;
        response_excerpt: Uint8Array | null;
      }>(
        `SELECT started_at, duration_ms, status, error, response_excerpt FROM delivery_attempts
          WHERE delivery_id = $1 ORDER BY seq LIMIT 1000`,
        [id],
      );
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
     * Makes a delivery due now, whatever its state, with the same id. A dead delivery gets one
     * more attempt (its schedule is spent: if that fails, it is dead again).
     */
    async retry(id: string, actor: AuditActor = { type: 'operator' }): Promise<DeliveryInfo> {
      return database.transaction(async (transaction) => {
        const { rows } = await transaction.query<DeliveryRow>(
          `WITH updated AS (
             UPDATE deliveries SET state = 'pending', next_attempt_at = $2, lease_until = NULL
              WHERE id = $1 RETURNING *)
           SELECT ${columns} FROM updated AS d JOIN outbox_events AS ev ON ev.id = d.event_id`,
          [id, new Date(clock.now())],
        );
        const row = rows[0];
        if (!row) {
          throw new FollowUpServerError({
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
            metadata: { endpointId: row.endpoint_id, previousState: row.state },
          },
          { clock, newId },
        );
        return toInfo(row);
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
        const endpoint = await transaction.query('SELECT id FROM webhook_endpoints WHERE id = $1', [
          input.endpointId,
        ]);
        if (endpoint.rows.length === 0) {
          throw new FollowUpServerError({
            code: 'endpoint_not_found',
            message: `No webhook endpoint ${input.endpointId}.`,
          });
        }
        const { rows } = await transaction.query<DeliveryRow>(
          `WITH updated AS (
             UPDATE deliveries SET state = 'pending', next_attempt_at = $3, lease_until = NULL
              WHERE endpoint_id = $1 AND created_at >= $2
                AND (state = 'dead' OR (state = 'pending' AND attempts > 0))
             RETURNING *)
           SELECT ${columns} FROM updated AS d JOIN outbox_events AS ev ON ev.id = d.event_id
            ORDER BY d.created_at, d.id`,
          [input.endpointId, input.since, new Date(clock.now())],
        );
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
        return rows.map(toInfo);
      });
    },
  };
}

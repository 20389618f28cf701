import type { Queryable } from '../storage/database.js';

// The statements of `webhook_replays` and of a replay's deliveries (delivery/webhook-replay.ts):
// which events of a window a replay sends again, the replay written with its deliveries, and its
// progress.

/**
 * @internal An event a replay may send again, with its state towards the endpoint: the state of
 * its latest delivery there (`failed` for one still pending whose attempts failed and that no
 * worker holds now), or `missing` when it has none.
 */
export interface ReplayCandidate {
  event_id: string;
  state: 'delivered' | 'failed' | 'dead' | 'missing';
  /** The latest delivery to the endpoint, or `null` when `missing`. */
  delivery_id: string | null;
}

/** @internal What {@link findReplayCandidates} reads. */
export interface ReplayWindow {
  endpointId: string;
  since: Date;
  /** The window's end, exclusive; `undefined` for every event written so far. */
  until: Date | undefined;
  /** Only these kinds (of those the endpoint takes); `undefined` for every kind. */
  kinds: readonly string[] | undefined;
  states: readonly string[];
  /** A kind never replayed: the test event, sent to one endpoint on request. */
  exceptKind: string;
  now: Date;
  /** Rows wanted; the caller asks one more than it allows, to tell a window too wide. */
  limit: number;
}

/**
 * @internal At most `limit` events written in `[since, until)` (or since `since`) of the kinds the endpoint takes
 * (its list, or every kind) and of `kinds`, whose state towards the endpoint is one of `states`,
 * in the outbox's order. An event with a pending delivery that has not failed, or one a worker
 * holds now, is on its way and never a candidate.
 */
export async function findReplayCandidates(
  queryable: Queryable,
  window: ReplayWindow,
): Promise<ReplayCandidate[]> {
  const { rows } = await queryable.query<ReplayCandidate>(
    `WITH endpoint AS (SELECT events FROM webhook_endpoints WHERE id = $1),
          events AS (
            SELECT ev.id AS event_id, ev.seq, latest.id AS delivery_id,
                   CASE
                     WHEN latest.id IS NULL THEN 'missing'
                     WHEN latest.state <> 'pending' THEN latest.state
                     WHEN latest.attempts > 0
                          AND (latest.lease_until IS NULL OR latest.lease_until <= $7)
                       THEN 'failed'
                     ELSE 'pending'
                   END AS state
              FROM outbox_events AS ev CROSS JOIN endpoint
              LEFT JOIN LATERAL (
                SELECT d.id, d.state, d.attempts, d.lease_until FROM deliveries AS d
                 WHERE d.event_id = ev.id AND d.endpoint_id = $1
                 ORDER BY d.created_at DESC, d.id DESC LIMIT 1) AS latest ON true
             WHERE ev.created_at >= $2 AND ($3::timestamptz IS NULL OR ev.created_at < $3) AND ev.event <> $4
               AND (ev.event = ANY (endpoint.events) OR '*' = ANY (endpoint.events))
               AND ($5::text[] IS NULL OR ev.event = ANY ($5::text[])))
     SELECT event_id, state, delivery_id FROM events
      WHERE state = ANY ($6::text[]) ORDER BY seq LIMIT $8`,
    [
      window.endpointId,
      window.since,
      window.until ?? null,
      window.exceptKind,
      window.kinds === undefined ? null : [...window.kinds],
      [...window.states],
      window.now,
      window.limit,
    ],
  );
  return rows;
}

/** @internal A replay as {@link insertReplay} writes it. */
export interface ReplayRecord {
  id: string;
  endpointId: string;
  since: Date;
  until: Date | undefined;
  kinds: readonly string[] | undefined;
  states: readonly string[];
  now: Date;
  /** One new delivery per event, due at `now`: their ids and events, pairwise. */
  deliveryIds: readonly string[];
  eventIds: readonly string[];
  /** Pending deliveries that failed so far: ended, their event now sent by the replay. */
  supersededDeliveryIds: readonly string[];
}

/**
 * @internal Writes a replay, its deliveries (due at `now`, marked with it) and ends the pending
 * deliveries it supersedes (dead, `last_error` naming the replay), in one statement; call it
 * in the transaction that read the candidates.
 */
export async function insertReplay(queryable: Queryable, replay: ReplayRecord): Promise<void> {
  await queryable.query(
    `WITH replay AS (
       INSERT INTO webhook_replays (id, endpoint_id, since, until, kinds, states, count, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, cardinality($7::text[]), $8) RETURNING id),
     queued AS (
       INSERT INTO deliveries
              (id, event_id, endpoint_id, state, attempts, next_attempt_at, created_at, replay_id)
       SELECT pairs.id, pairs.event_id, $2, 'pending', 0, $8, $8, replay.id
         FROM unnest($7::text[], $9::text[]) AS pairs (id, event_id) CROSS JOIN replay)
     UPDATE deliveries
        SET state = 'dead', next_attempt_at = NULL, last_error = 'replayed as ' || $1
      WHERE id = ANY ($10::text[]) AND state = 'pending'`,
    [
      replay.id,
      replay.endpointId,
      replay.since,
      replay.until ?? null,
      replay.kinds === undefined ? null : [...replay.kinds],
      [...replay.states],
      [...replay.deliveryIds],
      replay.now,
      [...replay.eventIds],
      [...replay.supersededDeliveryIds],
    ],
  );
}

/** @internal A replay's progress: how many deliveries it queued, and how many are pending. */
export interface ReplayProgressRow {
  id: string;
  count: number;
  pending: number;
}

/** @internal The progress of the replay with this id, or `undefined`. */
export async function findReplayProgress(
  queryable: Queryable,
  id: string,
): Promise<ReplayProgressRow | undefined> {
  const { rows } = await queryable.query<ReplayProgressRow>(
    `SELECT r.id, r.count,
            (SELECT count(*) FROM deliveries AS d
              WHERE d.replay_id = r.id AND d.state = 'pending')::int AS pending
       FROM webhook_replays AS r WHERE r.id = $1`,
    [id],
  );
  return rows[0];
}

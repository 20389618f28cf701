import type { Queryable } from '../storage/database.js';
import { endpointSubscribes } from './webhook-endpoint-store.js';

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
 * (`endpointSubscribes`: its list, or every kind; an operational event only when listed and not
 * about itself) and of `kinds`, whose state towards the endpoint is one of `states`,
 * in the outbox's order. An event with a pending delivery that has not failed, or one a worker
 * holds now, is on its way and never a candidate.
 */
export async function findReplayCandidates(
  queryable: Queryable,
  window: ReplayWindow,
): Promise<ReplayCandidate[]> {
  const { rows } = await queryable.query<ReplayCandidate>(
    `WITH endpoint AS (SELECT id, events, subscriber FROM webhook_endpoints WHERE id = $1),
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
              -- The fan-out's delivery and the latest replayed one, each from its own index
              -- (migration 29), and the later of the two.
              LEFT JOIN LATERAL (
                SELECT found.* FROM (
                  (SELECT d.id, d.state, d.attempts, d.lease_until, d.created_at
                     FROM deliveries AS d
                    WHERE d.event_id = ev.id AND d.endpoint_id = $1 AND d.replay_id IS NULL)
                  UNION ALL
                  (SELECT d.id, d.state, d.attempts, d.lease_until, d.created_at
                     FROM deliveries AS d
                    WHERE d.event_id = ev.id AND d.endpoint_id = $1 AND d.replay_id IS NOT NULL
                    ORDER BY d.created_at DESC, d.id DESC LIMIT 1)) AS found
                 ORDER BY found.created_at DESC, found.id DESC LIMIT 1) AS latest ON true
             WHERE ev.created_at >= $2 AND ($3::timestamptz IS NULL OR ev.created_at < $3) AND ev.event <> $4
               AND ${endpointSubscribes('endpoint', 'ev.event', 'ev.data')}
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
  /** One new delivery per event, due at `now`: their ids, events, and what they supersede. */
  deliveries: readonly {
    id: string;
    eventId: string;
    /** The pending delivery of the event that failed so far (`failed`), or `null`. */
    supersedes: string | null;
  }[];
}

/**
 * @internal Writes a replay and its deliveries (due at `now`, marked with it), ending the
 * pending deliveries they supersede (dead, `last_error` naming the replay), in one statement;
 * call it in the transaction that read the candidates. A superseded delivery that a worker
 * claimed since it was read (its lease held, or no longer pending) is left to that worker, and
 * its event is not queued again: the event goes once. Answers how many deliveries it queued.
 */
export async function insertReplay(queryable: Queryable, replay: ReplayRecord): Promise<number> {
  const { rows } = await queryable.query<{ count: number }>(
    `WITH superseded AS (
       -- A claim holding the row makes this wait for its commit, then see its lease.
       UPDATE deliveries
          SET state = 'dead', next_attempt_at = NULL, last_error = 'replayed as ' || $1
        WHERE id = ANY ($10::text[]) AND state = 'pending'
          AND (lease_until IS NULL OR lease_until <= $8)
       RETURNING id),
     pairs AS (
       SELECT pair.id, pair.event_id
         FROM unnest($7::text[], $9::text[], $10::text[]) AS pair (id, event_id, supersedes)
        WHERE pair.supersedes IS NULL
           OR pair.supersedes IN (SELECT superseded.id FROM superseded)),
     replay AS (
       INSERT INTO webhook_replays (id, endpoint_id, since, until, kinds, states, count, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, (SELECT count(*) FROM pairs), $8) RETURNING id),
     queued AS (
       INSERT INTO deliveries
              (id, event_id, endpoint_id, state, attempts, next_attempt_at, created_at, replay_id,
               payload)
       -- A replayed event goes with the body the endpoint takes now (full or thin).
       SELECT pairs.id, pairs.event_id, $2, 'pending', 0, $8, $8, replay.id,
              coalesce((SELECT endpoint.payload FROM webhook_endpoints AS endpoint
                         WHERE endpoint.id = $2), 'full')
         FROM pairs CROSS JOIN replay
       RETURNING id)
     SELECT (SELECT count(*) FROM queued)::int AS count`,
    [
      replay.id,
      replay.endpointId,
      replay.since,
      replay.until ?? null,
      replay.kinds === undefined ? null : [...replay.kinds],
      [...replay.states],
      replay.deliveries.map((delivery) => delivery.id),
      replay.now,
      replay.deliveries.map((delivery) => delivery.eventId),
      replay.deliveries.map((delivery) => delivery.supersedes),
    ],
  );
  return rows[0]?.count ?? 0;
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

import { REPLAY_LIMITS, type REPLAY_STATES } from '@followup/sdk';
import { recordAuditEntry } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import { FollowUpServerError } from '../errors.js';
import type { IdGenerator } from '../ids.js';
import type { Database } from '../storage/database.js';
import type { AuditActor } from '../stores/audit-store.js';
import { notifyOutboxListeners } from '../stores/outbox-store.js';
import { lockEndpointState } from '../stores/webhook-endpoint-store.js';
import {
  findReplayCandidates,
  findReplayProgress,
  insertReplay,
} from '../stores/webhook-replay-store.js';
import { TEST_EVENT_KIND } from './test-event.js';

/** What a replay sends again: an event by its delivery to the endpoint (see `REPLAY_STATES`). */
export type ReplayState = (typeof REPLAY_STATES)[number];

/** What {@link replayEvents} is asked to send again. */
export interface ReplayRequest {
  endpointId: string;
  /** The window's start, inclusive. */
  since: Date;
  /** The window's end, exclusive; every event written so far when not given. */
  until?: Date | undefined;
  /** Only these kinds; every kind the endpoint takes when not given. */
  kinds?: readonly string[] | undefined;
  /** Default `REPLAY_LIMITS.defaultStates`: `failed`, `dead`, `missing`. */
  states?: readonly ReplayState[] | undefined;
}

/** What {@link replayEvents} queued. */
export interface QueuedReplay {
  /** `rpl_…` */
  id: string;
  /** How many deliveries it queued, one per event. */
  count: number;
}

/** A replay's progress, as `GET /api/replays/{id}` answers it. */
export interface ReplayProgress {
  id: string;
  /** `running` while any of its deliveries is pending. */
  state: 'running' | 'done';
  count: number;
  /** How many of its deliveries ended (delivered or dead). */
  sent: number;
}

const dayMs = 86_400_000;

function refuse(field: 'since' | 'until', message: string): FollowUpServerError {
  return new FollowUpServerError({ code: `invalid_replay_${field}`, message });
}

/**
 * Sends an endpoint again the events of a window: each event of the kinds it takes, written in
 * `[since, until)`, whose delivery to it is in one of `states`, becomes a new delivery (due now,
 * sent by the worker with the endpoint's signing, retries and limits), written with the replay's
 * record and its audit entry (`endpoint.replayed`) in one transaction, so that a replay is
 * queued whole or not at all. A `failed` event's pending delivery is ended (dead, "replayed as
 * rpl_…"), so the event is sent once; one a worker claimed meanwhile is left to it, not queued.
 * An unknown endpoint is `endpoint_not_found`, a disabled one `endpoint_disabled`; `since`
 * older than `REPLAY_LIMITS.maxAgeDays` is `invalid_replay_since`, `until` not after `since` or
 * a window holding more than `REPLAY_LIMITS.maxEvents` events `invalid_replay_until`.
 *
 * @example
 * ```ts
 * const { id, count } = await replayEvents(database, {
 *   replay: { endpointId: 'we_…', since: new Date(Date.now() - 3_600_000) },
 *   clock,
 *   newId,
 *   actor,
 * });
 * ```
 */
export async function replayEvents(
  database: Database,
  options: { replay: ReplayRequest; clock: Clock; newId: IdGenerator; actor: AuditActor },
): Promise<QueuedReplay> {
  const { replay, clock, newId } = options;
  const now = new Date(clock.now());
  const { until } = replay;
  if (replay.since.getTime() < now.getTime() - REPLAY_LIMITS.maxAgeDays * dayMs) {
    throw refuse(
      'since',
      `since must be within the last ${REPLAY_LIMITS.maxAgeDays} days (the events' retention)`,
    );
  }
  if (until !== undefined && until.getTime() <= replay.since.getTime()) {
    throw refuse('until', 'until must be after since');
  }
  const states = replay.states ?? REPLAY_LIMITS.defaultStates;
  return database.transaction(async (transaction) => {
    const state = await lockEndpointState(transaction, replay.endpointId);
    if (state === undefined) {
      throw new FollowUpServerError({
        code: 'endpoint_not_found',
        message: `No webhook endpoint ${replay.endpointId}.`,
      });
    }
    if (state !== 'active') {
      throw new FollowUpServerError({
        code: 'endpoint_disabled',
        message: `The endpoint ${replay.endpointId} is disabled: enable it to replay events to it.`,
      });
    }
    const candidates = await findReplayCandidates(transaction, {
      endpointId: replay.endpointId,
      since: replay.since,
      until,
      kinds: replay.kinds,
      states,
      exceptKind: TEST_EVENT_KIND,
      now,
      limit: REPLAY_LIMITS.maxEvents + 1,
    });
    if (candidates.length > REPLAY_LIMITS.maxEvents) {
      throw refuse(
        'until',
        `the window holds more than ${REPLAY_LIMITS.maxEvents} events to replay: move until closer to since`,
      );
    }
    const id = newId('rpl');
    const count = await insertReplay(transaction, {
      id,
      endpointId: replay.endpointId,
      since: replay.since,
      until,
      kinds: replay.kinds,
      states,
      now,
      deliveries: candidates.map((candidate) => ({
        id: newId('dlv'),
        eventId: candidate.event_id,
        supersedes: candidate.state === 'failed' ? candidate.delivery_id : null,
      })),
    });
    await recordAuditEntry(
      transaction,
      {
        action: 'endpoint.replayed',
        actor: options.actor,
        target: { type: 'webhook_endpoint', id: replay.endpointId },
        metadata: {
          replayId: id,
          since: replay.since.toISOString(),
          until: until?.toISOString() ?? null,
          kinds: replay.kinds === undefined ? null : [...replay.kinds],
          states: [...states],
          count,
        },
      },
      { clock, newId },
    );
    if (count > 0) await notifyOutboxListeners(transaction);
    return { id, count };
  });
}

/**
 * A replay's progress: `done` once none of its deliveries is pending; `sent` counts those that
 * ended. `undefined` when no replay has this id.
 */
export async function readReplayProgress(
  database: Database,
  id: string,
): Promise<ReplayProgress | undefined> {
  const row = await findReplayProgress(database, id);
  if (row === undefined) return undefined;
  return {
    id: row.id,
    state: row.pending > 0 ? 'running' : 'done',
    count: row.count,
    sent: row.count - row.pending,
  };
}

import { z } from 'zod';
import { WEBHOOK_EVENT_KINDS, type WebhookEventKind } from '../wire/event-kinds.js';
import { REPLAY_STATES } from '../wire/limits.js';
import { openEnum } from './open-enum.js';

// What `POST /api/webhook-endpoints/{id}/replay` takes and answers, and `GET /api/replays/{id}`.
// The window's bounds against the server's clock (retention) are checked by the server.

const instant = (name: string) =>
  z.iso.datetime({
    offset: true,
    error: `${name} must be an ISO 8601 timestamp such as 2026-03-01T09:00:00Z`,
  });

// Typed as their unions, so that the reference names the type instead of spelling out each value.
const replayKind: z.ZodType<WebhookEventKind, WebhookEventKind> = z.enum(WEBHOOK_EVENT_KINDS, {
  error: `must be one of ${WEBHOOK_EVENT_KINDS.join(', ')}`,
});
type ReplayState = (typeof REPLAY_STATES)[number];
const replayState: z.ZodType<ReplayState, ReplayState> = z.enum(REPLAY_STATES, {
  error: `must be one of ${REPLAY_STATES.join(', ')}`,
});

/**
 * Schema of a replay's input: the window `since` (inclusive) to `until` (exclusive, default
 * now), optionally only some `kinds`, and the `states` to send again (default `failed`, `dead`,
 * `missing`). Unknown fields are refused.
 *
 * @example
 * ```ts
 * replayInputSchema.parse({ since: '2026-03-01T09:00:00Z', states: ['missing'] });
 * ```
 */
export const replayInputSchema = z
  .strictObject({
    /** The window's start, inclusive; no older than `REPLAY_LIMITS.maxAgeDays`. */
    since: instant('since'),
    /** The window's end, exclusive, after `since`; every event written so far when not given. */
    until: instant('until').optional(),
    /** Only events of these kinds (of those the endpoint takes); every kind when not given. */
    kinds: z
      .array(replayKind)
      .min(1, 'must list at least one kind')
      .max(WEBHOOK_EVENT_KINDS.length, `must list at most ${WEBHOOK_EVENT_KINDS.length} kinds`)
      .optional(),
    /**
     * The events to send again, by their delivery to the endpoint: `delivered`, `failed` (pending,
     * its attempts failing), `dead`, `missing` (never delivered to it: written before it existed
     * or while it was disabled). Default `failed`, `dead`, `missing`.
     */
    states: z
      .array(replayState)
      .min(1, 'must list at least one state')
      .max(REPLAY_STATES.length, `must list at most ${REPLAY_STATES.length} states`)
      .optional(),
  })
  .refine(
    (input) => input.until === undefined || Date.parse(input.until) > Date.parse(input.since),
    {
      path: ['until'],
      message: 'until must be after since',
    },
  );

/**
 * The input of `client.webhookEndpoints.replay()`.
 *
 * @example
 * ```ts
 * const input: ReplayInput = { since: new Date(Date.now() - 3_600_000).toISOString() };
 * ```
 */
export type ReplayInput = z.input<typeof replayInputSchema>;

/**
 * Schema of a queued replay: its id (`rpl_…`) and how many deliveries it queued.
 *
 * @example
 * ```ts
 * const { id, count } = queuedReplaySchema.parse(json);
 * ```
 */
export const queuedReplaySchema = z.object({
  /** `rpl_…`: follow it with `client.replays.get()`. */
  id: z.string().min(1),
  /** How many deliveries the replay queued (one per event). */
  count: z.number().int().nonnegative(),
});

/**
 * The answer of `client.webhookEndpoints.replay()`.
 *
 * @example
 * ```ts
 * const { id, count }: QueuedReplay = await client.webhookEndpoints.replay(endpointId, { since });
 * ```
 */
export type QueuedReplay = z.infer<typeof queuedReplaySchema>;

/**
 * Schema of a replay's progress (unknown fields are kept).
 *
 * @example
 * ```ts
 * const replay = replaySchema.parse(json);
 * ```
 */
export const replaySchema = z.looseObject({
  /** `rpl_…` */
  id: z.string().min(1),
  /** `running` while any of its deliveries is pending, then `done`; an open enumeration. */
  state: openEnum(['running', 'done']),
  /** How many deliveries it queued. */
  count: z.number().int().nonnegative(),
  /** How many of them ended so far (delivered or dead). */
  sent: z.number().int().nonnegative(),
});

/**
 * The answer of `client.replays.get()`.
 *
 * @example
 * ```ts
 * const { state, sent, count }: Replay = await client.replays.get('rpl_…');
 * ```
 */
export type Replay = z.infer<typeof replaySchema>;

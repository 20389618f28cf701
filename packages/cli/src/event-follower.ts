import {
  type FollowUp,
  LIST_LIMITS,
  type WebhookEvent,
  type WebhookEventKind,
} from '@followup/sdk';
import type { CliClock } from './cli-io.js';
import type { ListenStart } from './listen-options.js';

/**
 * @internal The first wait of an idle feed, and the longest: 800 ms, so that an event is read
 * within a second of its commit, the poll's own round trip included.
 */
export const POLL_BACKOFF_MS = { first: 100, max: 800 } as const;

/** @internal Options of {@link followEvents}. */
export interface FollowEventsOptions {
  start: ListenStart;
  /** Only these kinds; every kind the token may read without it. */
  kinds: readonly WebhookEventKind[] | undefined;
  clock: CliClock;
  /** Stops the walk at once (a wait or a request in flight ends). */
  signal: AbortSignal;
  /** Told the event id the walk starts after, once known (`undefined`: the feed's beginning). */
  onStart?(after: string | undefined): void;
  /** Each event, oldest first; the next one waits for it. */
  onEvent(event: WebhookEvent): Promise<void> | void;
}

/**
 * @internal Follows `GET /api/events` until `signal` aborts: from the end of the feed (`now`),
 * its beginning, or after an event; each event handed to `onEvent` in the feed's order (commit
 * order). An idle feed is polled again after 100 ms, then waits doubling up to 800 ms, back to
 * 100 ms when an event arrives, so that an event is seen within about a second of its commit.
 *
 * @returns The id of the last event handed over (where to resume), or the one it started after.
 */
export async function followEvents(
  client: FollowUp,
  options: FollowEventsOptions,
): Promise<string | undefined> {
  const { signal, clock } = options;
  const kind = options.kinds === undefined ? {} : { kind: options.kinds };
  const request = { signal };
  let after: string | undefined;
  if (options.start.from === 'after') after = options.start.eventId;
  if (options.start.from === 'now') {
    // The feed has no "latest" query: walk it to its end once, in the largest pages.
    for await (const event of client.events.list(
      { ...kind, limit: LIST_LIMITS.maxLimit },
      request,
    )) {
      after = event.id;
    }
  }
  options.onStart?.(after);
  let wait: number = POLL_BACKOFF_MS.first;
  while (!signal.aborted) {
    let seen = false;
    try {
      for await (const event of client.events.list(
        { ...kind, limit: LIST_LIMITS.maxLimit, ...(after === undefined ? {} : { after }) },
        request,
      )) {
        if (signal.aborted) break;
        await options.onEvent(event);
        after = event.id;
        seen = true;
      }
    } catch (error) {
      if (signal.aborted) break;
      throw error;
    }
    if (seen) wait = POLL_BACKOFF_MS.first;
    else {
      await clock.sleep(wait, signal);
      wait = Math.min(wait * 2, POLL_BACKOFF_MS.max);
    }
  }
  return after;
}

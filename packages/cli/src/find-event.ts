import { type FollowUp, LIST_LIMITS, type WebhookEventKind } from '@followup/sdk';
import { FollowUpCliError } from './cli-error.js';
import type { CliClock } from './cli-io.js';

/** @internal Options of {@link findEventId}. */
export interface FindEventOptions {
  kind: WebhookEventKind;
  /** The `data.id` of the event looked for. */
  subjectId: string;
  clock: CliClock;
  /** How long the event may take to appear in the feed, in milliseconds. */
  timeoutMs: number;
}

/**
 * @internal The id (`evt_…`) of the newest event of `kind` about `subjectId` in
 * `GET /api/events`. The feed lists an event only once every transaction that began before it
 * has ended, so a change just made may take a moment to appear: the walk goes on from where it
 * stopped, after a wait that doubles from 50 ms to 1 s, until `timeoutMs` is spent.
 */
export async function findEventId(client: FollowUp, options: FindEventOptions): Promise<string> {
  const deadline = options.clock.now() + options.timeoutMs;
  let after: string | undefined;
  let found: string | undefined;
  let wait = 50;
  for (;;) {
    for await (const event of client.events.list({
      kind: options.kind,
      limit: LIST_LIMITS.maxLimit,
      ...(after === undefined ? {} : { after }),
    })) {
      after = event.id;
      const data = event.data as { id?: unknown } | undefined;
      if (data?.id === options.subjectId) found = event.id;
    }
    if (found !== undefined) return found;
    if (options.clock.now() >= deadline) {
      throw new FollowUpCliError({
        code: 'event_not_found',
        message: `No ${options.kind} event about ${options.subjectId} appeared in GET /api/events within ${options.timeoutMs / 1000} s.`,
      });
    }
    await options.clock.sleep(wait);
    wait = Math.min(wait * 2, 1000);
  }
}

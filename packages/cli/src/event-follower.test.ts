import type { FollowUp, WebhookEvent } from '@followup/sdk';
import { describe, expect, it } from 'vitest';
import { followEvents, POLL_BACKOFF_MS } from './event-follower.js';

// A feed that answers each poll with the next batch of events (empty when none is left), on a
// clock whose sleeps are only recorded: no real time passes.
function feedOf(batches: WebhookEvent[][]) {
  let poll = 0;
  const client = {
    events: {
      list() {
        const batch = batches[poll++] ?? [];
        return (async function* () {
          yield* batch;
        })();
      },
    },
  } as unknown as FollowUp;
  return { client, polls: () => poll };
}

function event(id: string): WebhookEvent {
  return { id, event: 'contact.created', createdAt: '2026-11-27T10:00:00Z' } as WebhookEvent;
}

describe('followEvents', () => {
  it('polls an idle feed at least every 800 ms, and again after 100 ms once an event came', async () => {
    const { client } = feedOf([[], [], [], [], [], [], [event('evt_1')], [], []]);
    const controller = new AbortController();
    const waits: number[] = [];
    const seen: string[] = [];
    await followEvents(client, {
      start: { from: 'start' },
      kinds: undefined,
      signal: controller.signal,
      clock: {
        now: () => 0,
        sleep: async (ms) => {
          waits.push(ms);
          if (waits.length === 8) controller.abort();
        },
      },
      onEvent: (received) => {
        seen.push(received.id);
      },
    });
    expect(seen).toEqual(['evt_1']);
    expect(waits).toEqual([100, 200, 400, 800, 800, 800, 100, 200]);
    expect(Math.max(...waits)).toBeLessThan(1_000);
    expect(POLL_BACKOFF_MS.max).toBe(800);
  });
});

import { describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { fanOutEvents } from '../delivery/fan-out.js';
import { createEndpointStore } from '../delivery/webhook-endpoints.js';
import { createIdGenerator } from '../ids.js';
import { makeFailedDeliveriesDue } from './delivery-store.js';
import { recordOutboxEvent } from './outbox-store.js';
import { findReplayCandidates, findReplayProgress, insertReplay } from './webhook-replay-store.js';

describe('insertReplay', () => {
  const database = useTestDatabase();
  const clock = manualClock();
  const newId = createIdGenerator({ now: () => clock.now() });

  /** An endpoint and one event whose delivery to it failed once, its lease as given. */
  async function aFailedDelivery(leaseUntil: Date | null) {
    const endpoint = await createEndpointStore({ database: database(), clock, newId }).add({
      url: 'https://hooks.example.com/',
    });
    const event = await recordOutboxEvent(
      database(),
      { event: 'contact.created', data: { id: 'con_1', firstName: 'Ada', lastName: 'L' } },
      { clock, newId },
    );
    await fanOutEvents(database(), { clock, newId });
    const { rows } = await database().query<{ id: string }>(
      `UPDATE deliveries SET attempts = 1, last_status = 500, lease_until = $1
        WHERE event_id = $2 RETURNING id`,
      [leaseUntil, event.id],
    );
    return { endpointId: endpoint.id, eventId: event.id, deliveryId: rows[0]?.id ?? '' };
  }

  function replayOf(failed: { endpointId: string; eventId: string; deliveryId: string }) {
    return {
      id: 'rpl_1',
      endpointId: failed.endpointId,
      since: new Date('2026-03-01T08:00:00Z'),
      until: undefined,
      kinds: undefined,
      states: ['failed'],
      now: new Date(clock.now()),
      deliveries: [{ id: 'dlv_replayed', eventId: failed.eventId, supersedes: failed.deliveryId }],
    };
  }

  async function deliveryStates() {
    const { rows } = await database().query<{ id: string; state: string; replay_id: string }>(
      'SELECT id, state, replay_id FROM deliveries ORDER BY id',
    );
    return rows;
  }

  it('ends the failed delivery it supersedes and queues the event once, marked with the replay', async () => {
    const failed = await aFailedDelivery(null);
    expect(await insertReplay(database(), replayOf(failed))).toBe(1);
    expect(await deliveryStates()).toEqual(
      [
        { id: failed.deliveryId, state: 'dead', replay_id: null },
        { id: 'dlv_replayed', state: 'pending', replay_id: 'rpl_1' },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
    expect(await findReplayProgress(database(), 'rpl_1')).toEqual({
      id: 'rpl_1',
      count: 1,
      pending: 1,
    });
  });

  it("is not undone by a recovery: the superseded delivery stays dead, the replay's is due", async () => {
    const failed = await aFailedDelivery(null);
    await insertReplay(database(), replayOf(failed));
    clock.advance(60_000);
    const recovered = await makeFailedDeliveriesDue(database(), {
      endpointId: failed.endpointId,
      since: new Date('2026-03-01T08:00:00Z'),
      now: new Date(clock.now()),
    });
    expect(recovered).toEqual([]);
    expect((await deliveryStates()).find((row) => row.id === failed.deliveryId)?.state).toBe(
      'dead',
    );
  });

  it('leaves a failed delivery a worker claimed meanwhile to it, and queues nothing for it', async () => {
    const failed = await aFailedDelivery(new Date(clock.now() + 60_000));
    expect(await insertReplay(database(), replayOf(failed))).toBe(0);
    expect(await deliveryStates()).toEqual([
      { id: failed.deliveryId, state: 'pending', replay_id: null },
    ]);
    expect(await findReplayProgress(database(), 'rpl_1')).toEqual({
      id: 'rpl_1',
      count: 0,
      pending: 0,
    });
  });
});

describe('findReplayCandidates', () => {
  const database = useTestDatabase();
  const clock = manualClock();
  const newId = createIdGenerator({ now: () => clock.now() });
  const endpoints = () => createEndpointStore({ database: database(), clock, newId });

  async function candidateKinds(endpointId: string) {
    const candidates = await findReplayCandidates(database(), {
      endpointId,
      since: new Date('2026-03-01T08:00:00Z'),
      until: undefined,
      kinds: undefined,
      exceptKind: 'webhook.test',
      states: ['missing', 'delivered', 'failed', 'dead'],
      now: new Date(clock.now()),
      limit: 100,
    });
    const { rows } = await database().query<{ id: string; event: string; about: string }>(
      "SELECT id, event, data->>'id' AS about FROM outbox_events ORDER BY seq",
    );
    return candidates.map((candidate) => {
      const event = rows.find((row) => row.id === candidate.event_id);
      return `${event?.event} ${event?.about}`;
    });
  }

  it('chooses endpoint.* events as the outbox does: listed, not about itself, within a subscriber', async () => {
    const everything = await endpoints().add({ url: 'https://hooks.example.com/all' });
    await endpoints().disable(everything.id);
    await endpoints().enable(everything.id);
    const kinds = ['endpoint.disabled', 'endpoint.enabled'];
    const watcher = await endpoints().add({ url: 'https://ops.example.com/', events: kinds });
    const zeta = await endpoints().add({
      url: 'https://zeta.example.com/',
      events: kinds,
      subscriber: 'zeta',
    });
    await endpoints().disable(watcher.id);
    await endpoints().enable(watcher.id);

    // Written before it existed, or about itself: `*` takes no operational kind.
    expect(await candidateKinds(everything.id)).toEqual([]);
    expect(await candidateKinds(watcher.id)).toEqual([
      `endpoint.disabled ${everything.id}`,
      `endpoint.enabled ${everything.id}`,
    ]);
    // Neither endpoint is zeta's.
    expect(await candidateKinds(zeta.id)).toEqual([]);
  });
});

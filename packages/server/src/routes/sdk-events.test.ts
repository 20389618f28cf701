import {
  FollowUp,
  NotFoundError,
  PermissionDeniedError,
  WEBHOOK_EVENT_KINDS,
  type WebhookEvent,
} from '@followup/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { transactionsSettled } from '../../test/support/database.js';
import { recordTwoAttempts } from '../../test/support/delivery-attempts.js';
import { useTestServer } from '../../test/support/server.js';
import { fanOutEvents } from '../delivery/fan-out.js';
import { createEndpointStore } from '../delivery/webhook-endpoints.js';
import { createIdGenerator } from '../ids.js';
import type { Role } from '../tokens/role.js';

// client.events and client.deliveries against the real routes, over HTTP, on each database.
describe('the SDK on the event feed, the event catalogue and delivery attempts', () => {
  const server = useTestServer();
  let baseUrl: string;
  beforeAll(async () => {
    baseUrl = await server().app.listen({ port: 0, host: '127.0.0.1' });
  });

  async function clientAs(role: Role): Promise<FollowUp> {
    const { token } = await server().tokenFor(role);
    return new FollowUp({ token, baseUrl, maxRetries: 0 });
  }

  const settled = () => transactionsSettled(server().database);

  it('walks every event with for await, typed by kind, filtered by kind, resumable', async () => {
    const client = await clientAs('ADMIN');
    const ada = await client.contacts.create({ firstName: 'Ada', lastName: 'Lovelace' });
    const deal = await client.deals.create({
      contactId: ada.id,
      title: 'Annual plan',
      amountCents: 120_000,
      currency: 'EUR',
      stage: 'OPEN',
    });
    await client.deals.update(deal.id, { stage: 'WON' });
    await client.contacts.update(ada.id, { lastName: 'King' });
    await settled();

    const all: WebhookEvent[] = [];
    for await (const event of client.events.list({ limit: 1 })) all.push(event);
    expect(all.map((event) => String(event.event))).toEqual([
      'contact.created',
      'deal.created',
      'deal.updated',
      'contact.updated',
    ]);
    for (const event of all) expect(event.id).toMatch(/^evt_/);
    const moved = all[2] as WebhookEvent;
    if (moved.event !== 'deal.updated') throw new Error('expected deal.updated');
    expect(moved.data.stage).toBe('WON');
    expect(moved.previousAttributes).toMatchObject({ stage: 'OPEN' });

    const deals: string[] = [];
    for await (const event of client.events.list({ kind: ['deal.created', 'deal.updated'] })) {
      deals.push(String(event.event));
    }
    expect(deals).toEqual(['deal.created', 'deal.updated']);

    const first = await client.events.list({ limit: 2 });
    expect(first.items.map((event) => event.id)).toEqual(all.slice(0, 2).map((e) => e.id));
    const rest: string[] = [];
    for await (const event of client.events.list({ cursor: first.nextCursor as string })) {
      rest.push(event.id);
    }
    expect(rest).toEqual(all.slice(2).map((event) => event.id));
    const after: string[] = [];
    for await (const event of client.events.list({ after: all[0]?.id as string, limit: 2 })) {
      after.push(event.id);
    }
    expect(after).toEqual(all.slice(1).map((event) => event.id));
  });

  it('refuses a kind the role may not read with PermissionDeniedError', async () => {
    const readonly = await clientAs('READONLY');
    const error = await readonly.events
      .list({ kind: 'ehr.receipt.recorded' })
      .catch((caught: unknown) => caught);
    expect(PermissionDeniedError.isInstance(error)).toBe(true);
  });

  it('lists the catalogue of event kinds, each with its JSON Schema', async () => {
    const client = await clientAs('READONLY');
    const types = await client.events.types();
    expect(types.map((type) => type.kind)).toEqual([...WEBHOOK_EVENT_KINDS]);
    for (const type of types) {
      expect(type.description).not.toBe('');
      expect(type.schema).toMatchObject({ type: 'object' });
    }
  });

  it("lists a delivery's attempts to ADMIN, and refuses other roles", async () => {
    const { database, clock } = server();
    const client = await clientAs('ADMIN');
    const newId = createIdGenerator({ now: () => clock.now() });
    await createEndpointStore({ database, clock, newId }).add({
      url: 'https://hooks.example.com/',
    });
    await client.contacts.create({ firstName: 'Grace', lastName: 'Hopper' });
    await fanOutEvents(database, { clock, newId });
    const id = await recordTwoAttempts(database);
    await expect(client.deliveries.attempts(id)).resolves.toEqual([
      {
        startedAt: '2026-03-01T09:00:00.000Z',
        durationMs: 41,
        status: 503,
        error: null,
        responseBody: 'busy, try later',
      },
      {
        startedAt: '2026-03-01T09:01:00.000Z',
        durationMs: 15000,
        status: null,
        error: 'timeout',
        responseBody: null,
      },
    ]);
    const missing = await client.deliveries.attempts('dlv_missing').catch((caught) => caught);
    expect(NotFoundError.isInstance(missing)).toBe(true);
    const member = await clientAs('AGENT');
    const denied = await member.deliveries.attempts(id).catch((caught: unknown) => caught);
    expect(PermissionDeniedError.isInstance(denied)).toBe(true);
  });
});

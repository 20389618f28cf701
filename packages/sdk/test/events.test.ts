import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  ConfigurationError,
  CursorPage,
  type DeliveryAttempt,
  type EventType,
  NotFoundError,
  ResponseValidationError,
  type WebhookEvent,
} from '../src/index.js';
import { type Fixture, startFixture } from './fixture-server.js';
import { clientFor } from './helpers.js';

const AT = '2026-01-01T00:00:00.000Z';

const contact = {
  id: 'con_1',
  firstName: 'Ada',
  lastName: 'Lovelace',
  lifecycle: 'LEAD',
  createdAt: AT,
  updatedAt: AT,
};
const deal = {
  id: 'deal_1',
  contactId: 'con_1',
  title: 'Annual plan',
  amountCents: 120000,
  currency: 'EUR',
  stage: 'WON',
  createdAt: AT,
  updatedAt: AT,
};
const created = { id: 'evt_1', event: 'contact.created', createdAt: AT, data: contact };
const updated = {
  id: 'evt_2',
  event: 'deal.updated',
  createdAt: AT,
  data: deal,
  previousAttributes: { stage: 'OPEN' },
};
const later = { id: 'evt_3', event: 'invoice.paid', createdAt: AT, data: { total: 12 } };

let fixture: Fixture;
beforeAll(async () => {
  fixture = await startFixture();
});
afterAll(async () => {
  await fixture.close();
});

function sent(path: string) {
  return fixture.requests.filter((request) => request.path === path);
}

describe('client.events.list', () => {
  it('walks every page with for await, typing each event by its kind', async () => {
    const { client } = clientFor(fixture);
    fixture.script('GET', '/api/events', { body: { events: [created, later], nextCursor: 'c1' } });
    fixture.script('GET', '/api/events', { body: { events: [], nextCursor: 'c2' } });
    fixture.script('GET', '/api/events', { body: { events: [updated], nextCursor: null } });
    const before = sent('/api/events').length;
    const seen: WebhookEvent[] = [];
    for await (const event of client.events.list({
      kind: ['contact.created', 'deal.updated'],
      limit: 2,
    })) {
      seen.push(event);
    }
    expect(seen.map((event) => event.id)).toEqual(['evt_1', 'evt_3', 'evt_2']);
    const requests = sent('/api/events').slice(before);
    expect(requests.map((request) => request.query.cursor)).toEqual([undefined, 'c1', 'c2']);
    for (const request of requests) {
      expect(request.repeated.kind).toEqual(['contact.created', 'deal.updated']);
      expect(request.query.limit).toBe('2');
    }
    const update = seen[2] as WebhookEvent;
    if (update.event !== 'deal.updated') throw new Error('expected deal.updated');
    expectTypeOf(update.previousAttributes).toEqualTypeOf<Record<string, unknown>>();
    expect(update.data.stage).toBe('WON');
    expect(update.previousAttributes).toEqual({ stage: 'OPEN' });
    expect(String(seen[1]?.event)).toBe('invoice.paid');
  });

  it('is one page when awaited, and resumes from a cursor', async () => {
    const { client } = clientFor(fixture);
    fixture.script('GET', '/api/events', { body: { events: [updated], nextCursor: 'c9' } });
    const page = await client.events.list({ cursor: 'c8', kind: 'deal.updated' });
    expect(page).toBeInstanceOf(CursorPage);
    expect(page.items.map((event) => event.id)).toEqual(['evt_2']);
    expect(page.nextCursor).toBe('c9');
    const request = sent('/api/events').at(-1);
    expect(request?.query).toMatchObject({ cursor: 'c8', kind: 'deal.updated', limit: '50' });
  });

  it('starts after an event id, then follows cursors without it', async () => {
    const { client } = clientFor(fixture);
    fixture.script('GET', '/api/events', { body: { events: [updated], nextCursor: 'c1' } });
    fixture.script('GET', '/api/events', { body: { events: [later], nextCursor: null } });
    const before = sent('/api/events').length;
    const ids: string[] = [];
    for await (const event of client.events.list({ after: 'evt_1' })) ids.push(event.id);
    expect(ids).toEqual(['evt_2', 'evt_3']);
    const [first, second] = sent('/api/events').slice(before);
    expect(first?.query).toEqual({ limit: '50', after: 'evt_1' });
    expect(second?.query).toEqual({ limit: '50', cursor: 'c1' });
  });

  it('refuses bad parameters before any request', () => {
    const { client } = clientFor(fixture);
    const before = sent('/api/events').length;
    expect(() => client.events.list({ cursor: 'c1', after: 'evt_1' })).toThrow(ConfigurationError);
    expect(() => client.events.list({ kind: [] })).toThrow(ConfigurationError);
    expect(() => client.events.list({ kind: '' })).toThrow(ConfigurationError);
    expect(() => client.events.list({ after: '' })).toThrow(ConfigurationError);
    expect(() => client.events.list({ limit: 201 })).toThrow(ConfigurationError);
    expect(sent('/api/events').length).toBe(before);
  });

  it('refuses an event of a known kind whose data does not match its schema', async () => {
    const { client } = clientFor(fixture, { maxRetries: 0 });
    const broken = { ...created, data: { id: 'con_1' } };
    fixture.script('GET', '/api/events', { body: { events: [broken], nextCursor: null } });
    const error = await client.events.list().catch((caught: unknown) => caught);
    expect(ResponseValidationError.isInstance(error)).toBe(true);
    expect((error as ResponseValidationError).issues[0]?.path).toEqual([
      'events',
      0,
      'data',
      'firstName',
    ]);
  });
});

describe('client.events.types', () => {
  it('returns the catalogue as an array', async () => {
    const { client } = clientFor(fixture);
    const eventTypes = [
      {
        kind: 'contact.created',
        description: 'A contact was created.',
        schema: { type: 'object' },
      },
    ];
    fixture.script('GET', '/api/event-types', { body: { eventTypes } });
    const types = await client.events.types();
    expectTypeOf(types).toEqualTypeOf<EventType[]>();
    expect(types).toEqual(eventTypes);
    fixture.script('GET', '/api/event-types', { body: { eventTypes } });
    const { data, response } = await client.events.types().withResponse();
    expect(data).toEqual(eventTypes);
    expect(response.status).toBe(200);
  });
});

describe('client.deliveries.attempts', () => {
  const attempts: DeliveryAttempt[] = [
    { startedAt: AT, durationMs: 15000, status: null, error: 'timeout', responseBody: null },
    { startedAt: AT, durationMs: 12, status: 200, error: null, responseBody: 'ok' },
  ];

  it("returns a delivery's attempts, oldest first", async () => {
    const { client } = clientFor(fixture);
    fixture.script('GET', '/api/deliveries/dlv_1/attempts', { body: { attempts } });
    const result = await client.deliveries.attempts('dlv_1');
    expectTypeOf(result).toEqualTypeOf<DeliveryAttempt[]>();
    expect(result).toEqual(attempts);
  });

  it('encodes the id as one path segment and refuses one that is not', async () => {
    const { client } = clientFor(fixture);
    expect(() => client.deliveries.attempts('../audit')).toThrow(ConfigurationError);
    expect(() => client.deliveries.attempts('')).toThrow(ConfigurationError);
    fixture.script('GET', '/api/deliveries/dlv%20x/attempts', { body: { attempts: [] } });
    await expect(client.deliveries.attempts('dlv x')).resolves.toEqual([]);
  });

  it("answers an empty list, not a TypeError, for a body without the array under validation: 'off'", async () => {
    const { client } = clientFor(fixture, { validation: 'off' });
    fixture.script('GET', '/api/deliveries/dlv_1/attempts', { body: {} });
    await expect(client.deliveries.attempts('dlv_1')).resolves.toEqual([]);
    fixture.script('GET', '/api/event-types', { body: 'null' });
    await expect(client.events.types()).resolves.toEqual([]);
  });

  it('rejects with NotFoundError for an unknown delivery', async () => {
    const { client } = clientFor(fixture, { maxRetries: 0 });
    const error = await client.deliveries
      .attempts('dlv_missing')
      .catch((caught: unknown) => caught);
    expect(NotFoundError.isInstance(error)).toBe(true);
  });
});

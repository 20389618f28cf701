import { signPayload } from '@followup/webhooks';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  ConfigurationError,
  isThinWebhookEvent,
  NotFoundError,
  ResponseValidationError,
  type ThinWebhookEvent,
  thinWebhookEventSchema,
  type WebhookEvent,
} from '../src/index.js';
import { type Fixture, startFixture } from './fixture-server.js';
import { clientFor } from './helpers.js';

// Thin webhook bodies (an endpoint whose payload is thin): client.events.get, and the handler's
// and unwrap's expand, against the fixture server.

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const NOW_MS = Date.UTC(2026, 10, 22, 2, 0, 0);
const clock = { now: () => NOW_MS, setTimer: () => () => {} };
const AT = '2026-11-22T01:59:59.000Z';

const contact = {
  id: 'con_1',
  firstName: 'Ada',
  lastName: 'Lovelace',
  lifecycle: 'LEAD',
  createdAt: AT,
  updatedAt: AT,
};
const fullEvent = { id: 'evt_1', event: 'contact.created', createdAt: AT, data: contact };
const thin = {
  id: 'dlv_1',
  event: 'contact.created',
  createdAt: AT,
  eventId: 'evt_1',
  data: { id: 'con_1', object: 'contact' },
};

let fixture: Fixture;
beforeAll(async () => {
  fixture = await startFixture();
});
afterAll(async () => {
  await fixture.close();
});

function fetchesOf(eventId: string) {
  return fixture.requests.filter((request) => request.path === `/api/events/${eventId}`).length;
}

function post(body: object) {
  const text = JSON.stringify(body);
  return new Request('https://subscriber.test/webhooks/followup', {
    method: 'POST',
    body: text,
    headers: {
      'content-type': 'application/json',
      'x-service-signature': signPayload(text, {
        secret: SECRET,
        timestamp: Math.floor(NOW_MS / 1000),
      }),
    },
  });
}

describe('client.events.get', () => {
  it('answers one event typed by its kind', async () => {
    const { client } = clientFor(fixture, { clock });
    fixture.script('GET', '/api/events/evt_1', { body: fullEvent });
    const event = await client.events.get('evt_1');
    expectTypeOf(event).toEqualTypeOf<WebhookEvent>();
    expect(event).toEqual(fullEvent);
    if (event.event !== 'contact.created') throw new Error('expected contact.created');
    expectTypeOf(event.data.firstName).toEqualTypeOf<string>();
  });

  it('is NotFoundError for an event the server does not hold, and checks the path segment', async () => {
    const { client } = clientFor(fixture, { clock, maxRetries: 0 });
    fixture.script('GET', '/api/events/evt_gone', {
      status: 404,
      headers: { 'content-type': 'application/problem+json' },
      body: { type: 'about:blank', title: 'Not Found', status: 404, code: 'not_found' },
    });
    const error = await client.events.get('evt_gone').catch((caught: unknown) => caught);
    expect(NotFoundError.isInstance(error)).toBe(true);
    expect(() => client.events.get('../audit')).toThrow(ConfigurationError);
  });

  it('refuses an event of a known kind whose data does not match its schema', async () => {
    const { client } = clientFor(fixture, { clock, maxRetries: 0 });
    fixture.script('GET', '/api/events/evt_1', { body: { ...fullEvent, data: { id: 'con_1' } } });
    const error = await client.events.get('evt_1').catch((caught: unknown) => caught);
    expect(ResponseValidationError.isInstance(error)).toBe(true);
  });
});

describe('thinWebhookEventSchema', () => {
  it('reads a thin body and tells it from full events', () => {
    const parsed = thinWebhookEventSchema.parse(thin);
    expectTypeOf(parsed).toEqualTypeOf<ThinWebhookEvent>();
    expectTypeOf(parsed.data).toEqualTypeOf<{ id: string; object: string }>();
    expect(isThinWebhookEvent(thin)).toBe(true);
    expect(isThinWebhookEvent(fullEvent)).toBe(false);
    // contact.erased carries the id only, and no object: a full event.
    expect(isThinWebhookEvent({ ...thin, event: 'contact.erased', data: { id: 'con_1' } })).toBe(
      false,
    );
    expect(isThinWebhookEvent({ ...thin, data: { ...thin.data, firstName: 'Ada' } })).toBe(false);
  });
});

describe('client.webhooks.unwrap with a thin body', () => {
  it('refuses it without expand, and answers the full event with expand: true', async () => {
    const { client } = clientFor(fixture, { clock });
    const request = post(thin);
    const body = await request.text();
    const now = Math.floor(NOW_MS / 1000);
    const refused = await client.webhooks
      .unwrap(body, request.headers, { secret: SECRET, now })
      .catch((caught: unknown) => caught);
    expect(ResponseValidationError.isInstance(refused)).toBe(true);
    expect((refused as Error).message).toMatch(/expand: true/);

    fixture.script('GET', '/api/events/evt_1', { body: fullEvent });
    const event = await client.webhooks.unwrap(body, request.headers, {
      secret: SECRET,
      now,
      expand: true,
    });
    expect(event).toEqual({ ...fullEvent, id: 'dlv_1', eventId: 'evt_1' });
  });
});

describe('client.webhooks.handler({ expand: true })', () => {
  function handlerOf(options: { expand?: boolean; maxRetries?: number } = {}) {
    const { client } = clientFor(fixture, { clock, maxRetries: options.maxRetries ?? 0 });
    const seen: WebhookEvent[] = [];
    const errors: unknown[] = [];
    const handler = client.webhooks.handler({
      secret: SECRET,
      ...(options.expand === undefined ? {} : { expand: options.expand }),
      on: {
        'contact.created': (event) => {
          seen.push(event);
        },
      },
      onError: (error) => errors.push(error),
    });
    return { handler, seen, errors };
  }

  it('hands the handler the full event a full endpoint would have received', async () => {
    const { handler, seen, errors } = handlerOf({ expand: true });
    fixture.script('GET', '/api/events/evt_1', { body: fullEvent });
    const response = await handler(post(thin));
    expect(response.status).toBe(204);
    expect(errors).toEqual([]);
    expect(seen).toEqual([{ ...fullEvent, id: 'dlv_1', eventId: 'evt_1' }]);
    const [event] = seen;
    if (event?.event !== 'contact.created') throw new Error('expected contact.created');
    expect(event.data.firstName).toBe('Ada');
  });

  it('handles a full body without fetching', async () => {
    const { handler, seen } = handlerOf({ expand: true });
    const before = fetchesOf('evt_2');
    const full = { ...fullEvent, id: 'dlv_2', eventId: 'evt_2' };
    expect((await handler(post(full))).status).toBe(204);
    expect(seen).toEqual([full]);
    expect(fetchesOf('evt_2')).toBe(before);
  });

  it('answers 503 when the fetch fails, and handles the delivery sent again', async () => {
    const { handler, seen, errors } = handlerOf({ expand: true });
    const again = { ...thin, id: 'dlv_3', eventId: 'evt_3' };
    fixture.script('GET', '/api/events/evt_3', {
      status: 503,
      headers: { 'content-type': 'application/problem+json' },
      body: { type: 'about:blank', title: 'Unavailable', status: 503, code: 'unavailable' },
    });
    const failed = await handler(post(again));
    expect(failed.status).toBe(503);
    expect(seen).toEqual([]);
    expect(errors).toHaveLength(1);

    // The claim was released: the server's next attempt is handled.
    fixture.script('GET', '/api/events/evt_3', { body: { ...fullEvent, id: 'evt_3' } });
    expect((await handler(post(again))).status).toBe(204);
    expect(seen.map((event) => [event.id, event.eventId])).toEqual([['dlv_3', 'evt_3']]);
  });

  it('refuses an answer about another event than the signed body names (503)', async () => {
    const { handler, seen } = handlerOf({ expand: true });
    const other = { ...thin, id: 'dlv_4', eventId: 'evt_4' };
    fixture.script('GET', '/api/events/evt_4', { body: fullEvent });
    expect((await handler(post(other))).status).toBe(503);
    expect(seen).toEqual([]);
  });

  it('answers 500 to a thin body without expand, and says why', async () => {
    const { handler, seen, errors } = handlerOf();
    const before = fetchesOf('evt_5');
    const response = await handler(post({ ...thin, id: 'dlv_5', eventId: 'evt_5' }));
    expect(response.status).toBe(500);
    expect(seen).toEqual([]);
    expect(ConfigurationError.isInstance(errors[0])).toBe(true);
    expect((errors[0] as Error).message).toMatch(/expand: true/);
    expect(fetchesOf('evt_5')).toBe(before);
  });

  it('refuses an expand option that is not a boolean', () => {
    const { client } = clientFor(fixture, { clock });
    expect(() =>
      client.webhooks.handler({ secret: SECRET, on: {}, expand: 'yes' as unknown as boolean }),
    ).toThrow(ConfigurationError);
  });
});

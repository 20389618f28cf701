import { createHmac } from 'node:crypto';
import { knownWebhookEventSchema, WEBHOOK_EVENT_KINDS, webhookEventSchemas } from '@followup/sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { transactionsSettled } from '../../test/support/database.js';
import { useTestServer } from '../../test/support/server.js';
import { listEvents } from '../events/event-feed.js';
import { createIdGenerator } from '../ids.js';
import { pruneExpired } from '../retention/retention.js';
import type { Queryable } from '../storage/database.js';
import { recordOutboxEvent } from '../stores/outbox-store.js';
import { roles } from '../tokens/role.js';

const EHR_SECRET = 'athena-secret';

describe('events', () => {
  const server = useTestServer({ ehrWebhookSecrets: { athenahealth: EHR_SECRET } });

  async function call(
    token: string,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
  ) {
    const response = await server().app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
    return response;
  }

  const settled = () => transactionsSettled(server().database);

  async function feed(token: string, query = '') {
    await settled();
    const response = await call(token, 'GET', `/api/events${query}`);
    expect(response.statusCode).toBe(200);
    return response.json() as {
      events: {
        id: string;
        event: string;
        data: Record<string, unknown>;
        previousAttributes?: Record<string, unknown>;
      }[];
      nextCursor: string | null;
    };
  }

  async function walk(token: string, query = '', limit = 2) {
    const seen: { id: string; event: string }[] = [];
    let cursor: string | null = null;
    do {
      const page = await feed(
        token,
        `?limit=${limit}${query}${cursor === null ? '' : `&cursor=${cursor}`}`,
      );
      seen.push(...page.events);
      cursor = page.nextCursor;
    } while (cursor !== null);
    return seen;
  }

  it('announces every change of contacts and deals, each body valid by its SDK schema', async () => {
    const { token } = await server().tokenFor('ADMIN');
    const contact = (
      await call(token, 'POST', '/api/contacts', { firstName: 'Ada', lastName: 'Lovelace' })
    ).json();
    server().clock.advance(1_000);
    const deal = (
      await call(token, 'POST', '/api/deals', {
        contactId: contact.id,
        title: 'Renewal',
        amountCents: 1000,
        currency: 'EUR',
      })
    ).json();
    server().clock.advance(1_000);
    await call(token, 'PATCH', `/api/deals/${deal.id}`, { stage: 'WON', title: 'Renewal' });
    await call(token, 'PATCH', `/api/contacts/${contact.id}`, {
      lifecycle: 'PATIENT',
      email: 'ada@example.com',
    });
    await call(token, 'DELETE', `/api/contacts/${contact.id}`);

    const events = await walk(token);
    expect(events.map((event) => event.event)).toEqual([
      'contact.created',
      'deal.created',
      'deal.updated',
      'contact.updated',
      'deal.deleted',
      'contact.deleted',
    ]);
    for (const event of events) {
      expect(knownWebhookEventSchema.safeParse(event).success).toBe(true);
      expect(event.id).toMatch(/^evt_/);
    }
    const [, , dealUpdated, contactUpdated, dealDeleted, contactDeleted] = events as never as {
      data: Record<string, unknown>;
      previousAttributes?: Record<string, unknown>;
    }[];
    // Exactly the fields that changed: the title was sent unchanged, so it is not there.
    expect(dealUpdated?.previousAttributes).toEqual({ stage: 'OPEN' });
    expect(dealUpdated?.data).toMatchObject({ id: deal.id, stage: 'WON' });
    // A field that had no value before is null.
    expect(contactUpdated?.previousAttributes).toEqual({ lifecycle: 'LEAD', email: null });
    expect(dealDeleted?.data).toMatchObject({ id: deal.id, stage: 'WON' });
    expect(contactDeleted?.data).toMatchObject({ id: contact.id, lifecycle: 'PATIENT' });
  });

  it('announces no update when nothing changed value', async () => {
    const { token } = await server().tokenFor('ADMIN');
    const contact = (
      await call(token, 'POST', '/api/contacts', { firstName: 'Ada', lastName: 'Lovelace' })
    ).json();
    expect(
      (await call(token, 'PATCH', `/api/contacts/${contact.id}`, { firstName: 'Ada' })).statusCode,
    ).toBe(200);
    expect((await walk(token)).map((event) => event.event)).toEqual(['contact.created']);
  });

  it('writes no event for a change that failed', async () => {
    const { token } = await server().tokenFor('ADMIN');
    const response = await call(token, 'POST', '/api/deals', {
      contactId: 'con_missing',
      title: 'x',
      amountCents: 1,
      currency: 'EUR',
    });
    expect(response.statusCode).toBe(400);
    expect(await walk(token)).toEqual([]);
  });

  it('announces inbox messages and EHR receipts', async () => {
    const { token } = await server().tokenFor('ADMIN');
    const inbox = await server().app.inject({
      method: 'POST',
      url: '/api/inbox/webhook',
      payload: { from: 'a@example.com', subject: 'Hello' },
    });
    expect(inbox.statusCode).toBe(201);
    const body = '{"event":"sync"}';
    const accepted = await server().app.inject({
      method: 'POST',
      url: '/api/ehr/webhooks/athenahealth',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature': `sha256=${createHmac('sha256', EHR_SECRET).update(body).digest('hex')}`,
      },
      payload: body,
    });
    expect(accepted.statusCode).toBe(202);
    const unknown = await server().app.inject({
      method: 'POST',
      url: '/api/ehr/webhooks/nobody',
      headers: { 'content-type': 'application/json' },
      payload: body,
    });
    expect(unknown.statusCode).toBe(404);
    const events = await walk(token);
    expect(events).toMatchObject([
      {
        event: 'message.received',
        data: { id: inbox.json().id, from: 'a@example.com', subject: 'Hello' },
      },
      {
        event: 'ehr.receipt.recorded',
        data: { id: accepted.json().receiptId, vendor: 'athenahealth', verdict: 'valid' },
      },
    ]);
    expect(JSON.stringify(events)).not.toContain('sync');
  });

  it('filters by kind, repeatable, and refuses an unknown kind or parameter', async () => {
    const { token } = await server().tokenFor('ADMIN');
    const contact = (
      await call(token, 'POST', '/api/contacts', { firstName: 'Ada', lastName: 'Lovelace' })
    ).json();
    await call(token, 'PATCH', `/api/contacts/${contact.id}`, { lastName: 'King' });
    await call(token, 'DELETE', `/api/contacts/${contact.id}`);
    expect((await walk(token, '&kind=contact.updated')).map((event) => event.event)).toEqual([
      'contact.updated',
    ]);
    expect(
      (await walk(token, '&kind=contact.created&kind=contact.deleted')).map((event) => event.event),
    ).toEqual(['contact.created', 'contact.deleted']);
    for (const query of [
      '?kind=contact.merged',
      '?colour=red',
      '?cursor=nonsense',
      // Forged: a change number past 2^63 - 1 and a transaction id past 2^64 - 1.
      `?cursor=${Buffer.from('events:v1:5:9223372036854775808').toString('base64url')}`,
      `?cursor=${Buffer.from('events:v1:18446744073709551616:5').toString('base64url')}`,
      '?after=evt_x',
    ]) {
      const response = await call(token, 'GET', `/api/events${query}`);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'validation_failed' });
    }
  });

  it('resumes after the id of the last event processed', async () => {
    const { token } = await server().tokenFor('ADMIN');
    for (const firstName of ['A', 'B', 'C']) {
      await call(token, 'POST', '/api/contacts', { firstName, lastName: 'X' });
    }
    const all = await walk(token);
    const rest = await feed(token, `?after=${all[0]?.id}`);
    expect(rest.events.map((event) => event.id)).toEqual(all.slice(1).map((event) => event.id));
  });

  it.each(roles)('shows %s only the events of records its role may read', async (role) => {
    const { token: admin } = await server().tokenFor('ADMIN');
    await call(admin, 'POST', '/api/contacts', { firstName: 'Ada', lastName: 'Lovelace' });
    // A verified delivery: only those are announced (a badly signed one records a receipt only).
    const body = '{"event":"sync"}';
    const received = await server().app.inject({
      method: 'POST',
      url: '/api/ehr/webhooks/athenahealth',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature': `sha256=${createHmac('sha256', EHR_SECRET).update(body).digest('hex')}`,
      },
      payload: body,
    });
    expect(received.statusCode).toBe(202);
    const { token } = await server().tokenFor(role);
    const kinds = (await walk(token)).map((event) => event.event);
    const seesReceipts = role === 'ADMIN' || role === 'MANAGER';
    expect(kinds).toEqual(
      seesReceipts ? ['contact.created', 'ehr.receipt.recorded'] : ['contact.created'],
    );
    const asked = await call(token, 'GET', '/api/events?kind=ehr.receipt.recorded');
    expect(asked.statusCode).toBe(seesReceipts ? 200 : 403);
  });

  it('walks every event exactly once while events are written between pages', async () => {
    const { token } = await server().tokenFor('ADMIN');
    const created: string[] = [];
    const create = async (index: number) => {
      const response = await call(token, 'POST', '/api/contacts', {
        firstName: `C${index}`,
        lastName: 'X',
      });
      created.push(response.json().id);
    };
    await Promise.all([0, 1, 2, 3, 4].map(create));
    const seen: string[] = [];
    let cursor: string | null = null;
    let next = 5;
    do {
      const page = await feed(token, `?limit=3${cursor === null ? '' : `&cursor=${cursor}`}`);
      seen.push(...page.events.map((event) => String(event.data.id)));
      cursor = page.nextCursor;
      if (next < 20) await Promise.all([next++, next++, next++].map(create));
    } while (cursor !== null);
    // The writes after the last page are read by a walk that resumes after its last event.
    expect(new Set(seen).size).toBe(seen.length);
    const last = (await walk(token)).at(-1);
    expect(last).toBeDefined();
    expect(seen.every((id) => created.includes(id))).toBe(true);
  });
});

describe('the event feed under concurrent transactions (PostgreSQL)', () => {
  const server = useTestServer();

  it('never lets a cursor pass an event that an older transaction commits late', async (context) => {
    const { database, clock } = server();
    if (database.driver !== 'postgres') context.skip();
    const newId = createIdGenerator({ now: () => clock.now() });
    const record = (queryable: Queryable, id: string) =>
      recordOutboxEvent(queryable, { event: 'contact.created', data: { id } }, { clock, newId });
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let written: () => void = () => {};
    const wrote = new Promise<void>((resolve) => {
      written = resolve;
    });
    const older = database.transaction(async (transaction) => {
      await record(transaction, 'con_older');
      written();
      await gate;
    });
    await wrote;
    // A later transaction commits first: with seq order alone, a reader would take it now and
    // its cursor would then skip the older one.
    await record(database, 'con_newer');
    const during = await listEvents(database, { kinds: ['contact.created'], limit: 10 });
    expect(during.events).toEqual([]);
    release();
    await older;
    await transactionsSettled(database);
    const ids = (await listEvents(database, { kinds: ['contact.created'], limit: 10 })).events.map(
      (event) => event.data.id,
    );
    expect(ids).toEqual(['con_older', 'con_newer']);
  });
});

describe('GET /api/events/{eventId}', () => {
  const server = useTestServer({ ehrWebhookSecrets: { athenahealth: EHR_SECRET } });

  async function call(
    token: string,
    method: 'GET' | 'POST' | 'PATCH',
    url: string,
    payload?: object,
  ) {
    return server().app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
  }

  async function feedEvents(token: string) {
    await transactionsSettled(server().database);
    return (await call(token, 'GET', '/api/events?limit=200')).json().events as {
      id: string;
      event: string;
    }[];
  }

  it('answers each event exactly as the feed shows it, erased values included', async () => {
    const { token } = await server().tokenFor('ADMIN');
    const contact = (
      await call(token, 'POST', '/api/contacts', { firstName: 'Ada', lastName: 'Lovelace' })
    ).json();
    await call(token, 'PATCH', `/api/contacts/${contact.id}`, { email: 'ada@example.com' });
    expect((await call(token, 'POST', `/api/contacts/${contact.id}/erase`)).statusCode).toBe(200);
    const listed = await feedEvents(token);
    expect(listed.map((event) => event.event)).toEqual([
      'contact.created',
      'contact.updated',
      'contact.deleted',
      'contact.erased',
    ]);
    for (const event of listed) {
      const response = await call(token, 'GET', `/api/events/${event.id}`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual(event);
    }
    // The erasure reached the stored copies: the single event shows "[erased]" as the feed does.
    const updated = (await call(token, 'GET', `/api/events/${listed[1]?.id}`)).json();
    expect(JSON.stringify(updated)).not.toContain('ada@example.com');
    expect(updated.data.email).toBe('[erased]');
  });

  it('hides an event from a role that may not read its kind, as the feed does', async () => {
    const body = '{"event":"sync"}';
    const accepted = await server().app.inject({
      method: 'POST',
      url: '/api/ehr/webhooks/athenahealth',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature': `sha256=${createHmac('sha256', EHR_SECRET).update(body).digest('hex')}`,
      },
      payload: body,
    });
    expect(accepted.statusCode).toBe(202);
    const { token: admin } = await server().tokenFor('ADMIN');
    const [receipt] = await feedEvents(admin);
    expect(receipt?.event).toBe('ehr.receipt.recorded');
    const { token: manager } = await server().tokenFor('MANAGER');
    expect((await call(manager, 'GET', `/api/events/${receipt?.id}`)).statusCode).toBe(200);
    const { token: agent } = await server().tokenFor('AGENT');
    expect(await feedEvents(agent)).toEqual([]);
    const hidden = await call(agent, 'GET', `/api/events/${receipt?.id}`);
    expect(hidden.statusCode).toBe(404);
    expect(hidden.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(hidden.json()).toMatchObject({ code: 'not_found' });
    expect(
      (await server().app.inject({ method: 'GET', url: `/api/events/${receipt?.id}` })).statusCode,
    ).toBe(401);
  });

  it('is 404 for an unknown event and one pruned past retention, 400 for a malformed id', async () => {
    const { token } = await server().tokenFor('ADMIN');
    await call(token, 'POST', '/api/contacts', { firstName: 'Ada', lastName: 'Lovelace' });
    const [created] = await feedEvents(token);
    expect((await call(token, 'GET', `/api/events/${created?.id}`)).statusCode).toBe(200);
    const unknown = await call(token, 'GET', '/api/events/evt_01JNOSUCHEVENT000000000000');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'not_found' });

    // Past the deliveries' retention (30 days by default), the event is pruned: gone from both.
    const now = server().clock.now() + 31 * 24 * 60 * 60 * 1000;
    expect((await pruneExpired(server().database, { now })).outboxEvents).toBe(1);
    expect(await feedEvents(token)).toEqual([]);
    const pruned = await call(token, 'GET', `/api/events/${created?.id}`);
    expect(pruned.statusCode).toBe(404);
    expect(pruned.json()).toMatchObject({ code: 'not_found' });

    for (const malformed of [
      'con_1',
      'evt_',
      'evt_a.b',
      `evt_${'x'.repeat(252)}`,
      'EVT_1',
      '.',
      ' ',
      '%',
    ]) {
      const response = await call(token, 'GET', `/api/events/${encodeURIComponent(malformed)}`);
      expect(response.statusCode, malformed).toBe(400);
      expect(response.json(), malformed).toMatchObject({
        code: 'validation_failed',
        errors: [{ path: 'eventId' }],
      });
    }
  });

  it('reads any id as an event id (404 when unknown) or refuses it (400), never more', async () => {
    const { token } = await server().tokenFor('ADMIN');
    const grammar = /^evt_[A-Za-z0-9_]+$/;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          // A dot segment is resolved by the URL before any route (the SDK never sends one).
          fc.string({ minLength: 1, maxLength: 300 }).filter((id) => id !== '.' && id !== '..'),
          fc.stringMatching(/^evt_[A-Za-z0-9_]{1,300}$/),
        ),
        async (id) => {
          const response = await call(token, 'GET', `/api/events/${encodeURIComponent(id)}`);
          const wellFormed = grammar.test(id) && id.length <= 255;
          expect(response.statusCode).toBe(wellFormed ? 404 : 400);
          expect(response.json().code).toBe(wellFormed ? 'not_found' : 'validation_failed');
        },
      ),
      { numRuns: 60 },
    );
  });

  it('is listed in the OpenAPI document with an operationId', async () => {
    const document = (await server().app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(document.paths['/api/events/{eventId}'].get).toMatchObject({
      operationId: 'getEvent',
      responses: { 200: expect.anything(), 404: expect.anything(), 400: expect.anything() },
    });
  });
});

describe('GET /api/event-types', () => {
  const server = useTestServer();

  it('lists every kind with the JSON Schema of its body, without a token', async () => {
    const response = await server().app.inject({ method: 'GET', url: '/api/event-types' });
    expect(response.statusCode).toBe(200);
    const { eventTypes } = response.json() as {
      eventTypes: { kind: string; description: string; schema: Record<string, unknown> }[];
    };
    expect(eventTypes.map((type) => type.kind)).toEqual([...WEBHOOK_EVENT_KINDS]);
    const dealUpdated = eventTypes.find((type) => type.kind === 'deal.updated');
    expect(dealUpdated).toMatchObject({
      thinSchema: {
        properties: {
          event: { const: 'deal.updated' },
          data: { required: ['id', 'object'], additionalProperties: false },
        },
      },
    });
    expect(dealUpdated?.schema).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['id', 'event', 'createdAt', 'data', 'previousAttributes']),
      properties: { event: { const: 'deal.updated' } },
    });
    expect(Object.keys(webhookEventSchemas)).toEqual([...WEBHOOK_EVENT_KINDS]);
  });

  it('publishes the same kinds in the OpenAPI document webhooks section', async () => {
    const response = await server().app.inject({ method: 'GET', url: '/openapi.json' });
    const document = response.json() as {
      openapi: string;
      webhooks: Record<
        string,
        { post: { requestBody: { content: Record<string, { schema: unknown }> } } }
      >;
    };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.webhooks)).toEqual([...WEBHOOK_EVENT_KINDS]);
    // The full body, or the thin one an endpoint whose payload is thin receives.
    expect(
      document.webhooks['contact.updated']?.post.requestBody.content['application/json']?.schema,
    ).toMatchObject({
      anyOf: [
        { properties: { event: { const: 'contact.updated' } } },
        {
          properties: { event: { const: 'contact.updated' } },
          required: ['id', 'event', 'createdAt', 'eventId', 'data'],
        },
      ],
    });
    expect(document).toHaveProperty(['paths', '/api/events', 'get']);
  });
});

describe('the event feed order', () => {
  const server = useTestServer();

  // Ordered by the text of the ids, '100' would come before '99' and '10' before '9': a walk
  // would then pass an event and never return to it.
  it('walks transaction ids and sequence numbers as numbers, not as text', async () => {
    const { database } = server();
    for (const [id, xid, seq] of [
      ['evt_c', '100', '10'],
      ['evt_b', '100', '9'],
      ['evt_a', '99', '20'],
    ]) {
      // Both ids below every transaction that can still run (the migrations alone took more).
      await database.query(
        `INSERT INTO outbox_events (seq, id, event, data, created_at, dispatched_at, xid)
         OVERRIDING SYSTEM VALUE
         VALUES ($1::bigint, $2, 'contact.created', '{}', now(), now(), $3::xid8)`,
        [seq, id, xid],
      );
    }
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listEvents(database, {
        kinds: ['contact.created'],
        limit: 1,
        ...(cursor === undefined ? {} : { cursor }),
      });
      ids.push(...page.events.map((event) => event.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    expect(ids).toEqual(['evt_a', 'evt_b', 'evt_c']);
  });
});

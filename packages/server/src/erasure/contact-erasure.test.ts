import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ERASED_VALUE,
  FollowUp,
  knownWebhookEventSchema,
  NotFoundError,
  type WebhookEvent,
} from '@followup/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transactionsSettled } from '../../test/support/database.js';
import { useTestServer } from '../../test/support/server.js';
import { recordAuditEntry } from '../audit/audit-log.js';
import { createDeliveryWorker } from '../delivery/delivery-worker.js';
import { fanOutEvents } from '../delivery/fan-out.js';
import { createEndpointStore } from '../delivery/webhook-endpoints.js';
import { createIdGenerator } from '../ids.js';
import type { Database, Queryable } from '../storage/database.js';

// A statement the next erasure fails on (to see that nothing of it stays), or none.
let failOn: RegExp | undefined;
function failing(queryable: Queryable): Queryable {
  return {
    query(sql, params) {
      if (failOn?.test(sql)) return Promise.reject(new Error('injected failure'));
      return queryable.query(sql, params);
    },
  };
}

const server = useTestServer({
  wrapDatabase: (database): Database => ({
    ...database,
    query: (sql, params) => failing(database).query(sql, params),
    transaction: (callback) =>
      database.transaction((transaction) => callback(failing(transaction))),
  }),
});

// A subscriber that answers each delivery with the body it received, as some do: the stored
// answer of an attempt then holds the person's values too.
let echo: Server;
let echoUrl: string;
const received: string[] = [];
let baseUrl: string;
beforeAll(async () => {
  baseUrl = await server().app.listen({ port: 0, host: '127.0.0.1' });
  echo = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push(body);
      response.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
  });
  echo.listen(0, '127.0.0.1');
  await once(echo, 'listening');
  echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/hooks`;
});
afterAll(async () => {
  echo.closeAllConnections();
  await new Promise((resolve) => echo.close(resolve));
});

async function call(
  token: string,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  payload?: unknown,
  headers: Record<string, string> = {},
) {
  return server().app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}`, ...headers },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

function dependencies() {
  const { clock } = server();
  return { clock, newId: createIdGenerator({ now: () => clock.now() }) };
}

/** Sends every due delivery once, as a worker of this process would. */
async function deliverDue(): Promise<void> {
  const worker = createDeliveryWorker({
    database: server().database,
    ...dependencies(),
    allowPrivate: true,
    retryDelays: [60],
    // A guard against a hung test, far above any attempt here even on a loaded machine.
    attemptTimeoutMs: 60_000,
    random: () => 0.5,
  });
  try {
    await worker.runDue();
  } finally {
    await worker.close();
  }
}

// The person: values no fixture, token or id of the suite can contain by chance.
const person = {
  formerFirstName: 'Zelphinia',
  firstName: 'Zelphine',
  lastName: 'Quarrington',
  email: 'zelphine.q@erasure.example',
  phone: '+44 20 7946 0958',
};

/**
 * Every place in the schema where one of `needles` still stands: every text, JSON, array and
 * byte column of every table (read from information_schema, so that a table added later is
 * covered without touching this test), compared without regard to case. The bodies of EHR
 * receipts are left out: they are kept as received, by design, and listed instead.
 */
async function whereStored(needles: readonly string[]): Promise<string[]> {
  const { rows: columns } = await server().database.query<{
    table_name: string;
    column_name: string;
    data_type: string;
  }>(
    `SELECT c.table_name, c.column_name, c.data_type
       FROM information_schema.columns AS c
       JOIN information_schema.tables AS t
         ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
        AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY',
                            'bytea')
      ORDER BY c.table_name, c.column_name`,
  );
  const tables = new Set(columns.map((column) => column.table_name));
  // The tables that hold the person before the erasure: the scan looks where it matters.
  for (const table of ['outbox_events', 'messages', 'idempotency_keys', 'delivery_attempts']) {
    expect([...tables]).toContain(table);
  }
  const found: string[] = [];
  for (const { table_name: table, column_name: column, data_type: type } of columns) {
    if (table === 'ehr_receipts' && column === 'raw_body') continue;
    const text = type === 'bytea' ? `encode("${column}", 'escape')` : `"${column}"::text`;
    for (const needle of needles) {
      const { rows } = await server().database.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM "${table}" WHERE strpos(lower(${text}), lower($1)) > 0`,
        [needle],
      );
      if ((rows[0]?.count ?? 0) > 0) found.push(`${table}.${column}: ${needle}`);
    }
  }
  return found;
}

const needles = Object.values(person);

describe('POST /api/contacts/{id}/erase', () => {
  it('leaves none of the contact’s values in any table, sends pending deliveries erased, and answers what it erased', async () => {
    failOn = undefined;
    received.length = 0;
    const { token } = await server().tokenFor('ADMIN');
    await createEndpointStore({ database: server().database, ...dependencies() }).add({
      url: echoUrl,
    });

    // A create with an Idempotency-Key (its answer is kept for replays), delivered at once and
    // echoed back (the attempt's stored answer holds the values).
    const createBody = {
      firstName: person.formerFirstName,
      lastName: person.lastName,
      email: person.email,
      phone: person.phone,
      lifecycle: 'PATIENT',
    };
    const created = await call(token, 'POST', '/api/contacts', createBody, {
      'idempotency-key': 'create-1',
    });
    expect(created.statusCode).toBe(201);
    const contactId: string = created.json().id;
    await deliverDue();
    expect(received.join('')).toContain(person.email);

    // A renamed first name (the former one in previousAttributes), a deal that names the person,
    // a batch that holds the contact, an inbox message from its address (another case), an audit
    // detail that holds a value, and an EHR receipt that mentions the address.
    server().clock.advance(1_000);
    expect(
      (await call(token, 'PATCH', `/api/contacts/${contactId}`, { firstName: person.firstName }))
        .statusCode,
    ).toBe(200);
    const deal = await call(
      token,
      'POST',
      '/api/deals',
      {
        contactId,
        title: `Knee surgery, ${person.firstName} ${person.lastName}`,
        amountCents: 120_000,
        currency: 'EUR',
      },
      { 'idempotency-key': 'deal-1' },
    );
    expect(deal.statusCode).toBe(201);
    const batch = await call(
      token,
      'POST',
      '/api/contacts/batch',
      {
        contacts: [
          {
            firstName: person.firstName,
            lastName: person.lastName,
            email: person.email,
            phone: `${person.phone} 1`,
          },
        ],
      },
      { 'idempotency-key': 'batch-1' },
    );
    expect(batch.json().results).toMatchObject([{ result: 'updated' }]);
    const message = await server().app.inject({
      method: 'POST',
      url: '/api/inbox/webhook',
      payload: {
        from: `${person.firstName} ${person.lastName} <${person.email.toUpperCase()}>`,
        subject: `Appointment for ${person.lastName}`,
        text: `Please call ${person.phone}.`,
      },
    });
    expect(message.statusCode).toBe(201);
    const unrelated = await server().app.inject({
      method: 'POST',
      url: '/api/inbox/webhook',
      payload: { from: 'someone@else.example', subject: 'Another sender', text: 'kept' },
    });
    await recordAuditEntry(
      server().database,
      {
        action: 'contact.reviewed',
        actor: { type: 'operator' },
        target: { type: 'contact', id: contactId },
        metadata: { email: person.email, checked: ['email'] },
      },
      dependencies(),
    );
    await server().database.query(
      `INSERT INTO ehr_receipts (id, vendor, verdict, raw_body, headers, received_at)
       VALUES ('rcpt_mentions', 'athenahealth', 'valid', $1, '{}', $2),
              ('rcpt_other', 'athenahealth', 'valid', $3, '{}', $2)`,
      [
        Buffer.from(JSON.stringify({ patient: { email: person.email.toUpperCase() } })),
        new Date(server().clock.now()),
        Buffer.from(JSON.stringify({ patient: { email: 'someone@else.example' } })),
      ],
    );
    // Every event so far has its delivery: the ones after the create wait, pending.
    await fanOutEvents(server().database, dependencies());
    expect((await whereStored(needles)).length).toBeGreaterThan(10);

    server().clock.advance(1_000);
    const erased = await call(token, 'POST', `/api/contacts/${contactId}/erase`);
    expect(erased.statusCode).toBe(200);
    expect(erased.json()).toEqual({
      id: contactId,
      erased: {
        // contact.created, two contact.updated (the PATCH and the batch), the erasure's own
        // contact.deleted; deal.created and the erasure's deal.deleted; message.received.
        events: 7,
        // One per event that had been fanned out: the created one (sent, its answer echoed),
        // the two updates, the deal and the message (pending).
        deliveries: 5,
        auditEntries: 1,
        messages: 1,
        // The create's, the deal's and the batch's answers.
        storedResponses: 3,
      },
      kept: { ehrReceipts: ['rcpt_mentions'] },
    });

    expect(await whereStored(needles)).toEqual([]);
    // Ids, kinds and times stay; the other sender's message is untouched.
    const { rows: messages } = await server().database.query<{ id: string; sender: string }>(
      'SELECT id, sender FROM messages ORDER BY id',
    );
    expect(messages).toEqual(
      expect.arrayContaining([
        { id: message.json().id, sender: ERASED_VALUE },
        { id: unrelated.json().id, sender: 'someone@else.example' },
      ]),
    );

    // The pending deliveries go out with the erased bodies, and subscribers hear contact.erased.
    received.length = 0;
    await deliverDue();
    const bodies = received.map((body) => JSON.parse(body));
    expect(bodies.map((body) => body.event).sort()).toEqual(
      [
        'contact.deleted',
        'contact.erased',
        'contact.updated',
        'contact.updated',
        'deal.created',
        'deal.deleted',
        'message.received',
        // The other sender's, as it came.
        'message.received',
      ].sort(),
    );
    for (const needle of needles) expect(received.join('\n')).not.toContain(needle);
    const updated = bodies.find((body) => body.event === 'contact.updated');
    expect(updated.data).toMatchObject({
      id: contactId,
      firstName: ERASED_VALUE,
      lastName: ERASED_VALUE,
      lifecycle: ERASED_VALUE,
      createdAt: '2026-03-01T09:00:00.000Z',
    });
    expect(bodies.find((body) => body.event === 'contact.erased').data).toEqual({ id: contactId });
    // Still nothing anywhere once the attempts' answers are stored.
    expect(await whereStored(needles)).toEqual([]);

    // A replay of the create's key answers the erased contact, and creates nothing.
    const replay = await call(token, 'POST', '/api/contacts', createBody, {
      'idempotency-key': 'create-1',
    });
    expect(replay.json()).toMatchObject({ id: contactId, firstName: ERASED_VALUE });
    // The feed still parses with the SDK's schemas: erased values keep each field's type.
    await transactionsSettled(server().database);
    const feed = await call(token, 'GET', '/api/events?limit=200');
    const events = feed.json().events as { event: string }[];
    expect(events.length).toBeGreaterThanOrEqual(8);
    for (const event of events) expect(knownWebhookEventSchema.safeParse(event).success).toBe(true);

    // Audited once as contact.erased, with counts and never a value.
    const audit = await server().database.query<{ actor_type: string; metadata: unknown }>(
      `SELECT actor_type, metadata FROM audit_entries WHERE action = 'contact.erased'`,
    );
    expect(audit.rows).toEqual([
      {
        actor_type: 'service_account',
        metadata: {
          contactDeleted: true,
          events: 7,
          deliveries: 5,
          auditEntries: 1,
          messages: 1,
          storedResponses: 3,
          ehrReceiptsKept: 1,
        },
      },
    ]);
  });

  it('erases a contact deleted earlier while events carry its id, again with zero counts, and answers 404 for an id nothing carries (SDK)', async () => {
    failOn = undefined;
    const { token } = await server().tokenFor('ADMIN');
    const client = new FollowUp({ token, baseUrl, maxRetries: 0 });
    const contact = await client.contacts.create({
      firstName: person.firstName,
      lastName: person.lastName,
    });
    await client.contacts.delete(contact.id);
    expect(await whereStored([person.firstName])).not.toEqual([]);

    const erasure = await client.contacts.erase(contact.id);
    expect(erasure).toEqual({
      id: contact.id,
      // contact.created and contact.deleted; the SDK's create sent an Idempotency-Key, so its
      // answer was kept for replays.
      erased: { events: 2, deliveries: 0, auditEntries: 0, messages: 0, storedResponses: 1 },
      kept: { ehrReceipts: [] },
    });
    expect(await whereStored([person.firstName, person.lastName])).toEqual([]);
    const audit = await server().database.query<{ metadata: { contactDeleted: boolean } }>(
      `SELECT metadata FROM audit_entries WHERE action = 'contact.erased'`,
    );
    expect(audit.rows.map((row) => row.metadata.contactDeleted)).toEqual([false]);

    // Again: nothing left to erase, and the answer says so.
    expect((await client.contacts.erase(contact.id)).erased).toEqual({
      events: 0,
      deliveries: 0,
      auditEntries: 0,
      messages: 0,
      storedResponses: 0,
    });
    // An id no contact and no event carries.
    const missing = await client.contacts
      .erase('con_00000000000000000000000000')
      .catch((error: unknown) => error);
    expect(NotFoundError.isInstance(missing)).toBe(true);

    // Subscribers of the feed see contact.erased, typed, with the id only.
    await transactionsSettled(server().database);
    const erasedEvents: WebhookEvent[] = [];
    for await (const event of client.events.list({ kind: 'contact.erased' })) {
      erasedEvents.push(event);
    }
    expect(erasedEvents).toHaveLength(2);
    const [first] = erasedEvents;
    if (first?.event !== 'contact.erased') throw new Error('expected contact.erased');
    expect(first.data).toEqual({ id: contact.id });
  });

  it('answers 403 to a role without contacts.delete, and erases nothing', async () => {
    failOn = undefined;
    const { token: admin } = await server().tokenFor('ADMIN');
    const contact = (
      await call(admin, 'POST', '/api/contacts', {
        firstName: person.firstName,
        lastName: person.lastName,
      })
    ).json();
    for (const role of ['MANAGER', 'AGENT', 'READONLY'] as const) {
      const { token } = await server().tokenFor(role);
      const response = await call(token, 'POST', `/api/contacts/${contact.id}/erase`);
      expect(response.statusCode, role).toBe(403);
      expect(response.json()).toMatchObject({ code: 'forbidden' });
    }
    expect((await call(admin, 'GET', `/api/contacts/${contact.id}`)).json()).toMatchObject({
      firstName: person.firstName,
    });
  });

  it('is one transaction: a failure part-way leaves the contact and every value as they were', async () => {
    const { token } = await server().tokenFor('ADMIN');
    const contact = (
      await call(token, 'POST', '/api/contacts', {
        firstName: person.firstName,
        lastName: person.lastName,
        email: person.email,
      })
    ).json();
    await server().app.inject({
      method: 'POST',
      url: '/api/inbox/webhook',
      payload: { from: person.email, subject: 'Hello', text: person.lastName },
    });
    const before = await whereStored(needles);
    // Past the delete, the events and the messages: the stored answers fail.
    failOn = /FROM idempotency_keys\s+WHERE response_body IS NOT NULL/;
    try {
      const response = await call(token, 'POST', `/api/contacts/${contact.id}/erase`);
      expect(response.statusCode).toBe(500);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    } finally {
      failOn = undefined;
    }
    expect(await whereStored(needles)).toEqual(before);
    expect((await call(token, 'GET', `/api/contacts/${contact.id}`)).statusCode).toBe(200);
    const { rows } = await server().database.query(
      `SELECT id FROM audit_entries WHERE action IN ('contact.deleted', 'contact.erased')`,
    );
    expect(rows).toEqual([]);
  });
});

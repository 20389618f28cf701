import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ConfigurationError,
  type Contact,
  FollowUp,
  NotFoundError,
} from '../src/index.js';
import { type Fixture, INBOX_SECRET, startFixture } from './fixture-server.js';
import { clientFor } from './helpers.js';

let fixture: Fixture;
beforeAll(async () => {
  fixture = await startFixture({ contacts: 3, deals: 2, messages: 2 });
});
afterAll(() => fixture.close());

describe('contacts', () => {
  it('creates, gets, updates, counts and deletes a contact', async () => {
    const { client } = clientFor(fixture);
    const created = await client.contacts.create({
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.com',
    });
    expect(created).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', lifecycle: 'LEAD' });
    const post = fixture.requests.findLast((request) => request.method === 'POST');
    expect(post?.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(post?.headers['content-type']).toMatch(/^application\/json/);

    const fetched: Contact = await client.contacts.get(created.id);
    expect(fetched).toEqual(created);
    expect(await client.contacts.count()).toBe(4);

    const updated = await client.contacts.update(created.id, { lifecycle: 'PATIENT', email: null });
    expect(updated.lifecycle).toBe('PATIENT');
    expect(updated.email).toBeUndefined();

    await expect(client.contacts.delete(created.id)).resolves.toBeUndefined();
    await expect(client.contacts.get(created.id)).rejects.toSatisfy(NotFoundError.isInstance);
    expect(await client.contacts.count()).toBe(3);
  });

  it('sends the same Idempotency-Key it was given', async () => {
    const { client } = clientFor(fixture);
    const first = await client.contacts.create(
      { firstName: 'Grace', lastName: 'Hopper' },
      { idempotencyKey: 'key-grace-1' },
    );
    const again = await client.contacts.create(
      { firstName: 'Grace', lastName: 'Hopper' },
      { idempotencyKey: 'key-grace-1' },
    );
    expect(again.id).toBe(first.id);
    await client.contacts.delete(first.id);
  });

  it('encodes ids in paths, and refuses an id that is not one path segment before any request', async () => {
    const { client } = clientFor(fixture);
    const before = fixture.requests.length;
    for (const id of ['', '.', '..', 'con_1/../x', '../audit', 'a\\b', 'x'.repeat(256)]) {
      expect(() => client.contacts.get(id)).toThrow(ConfigurationError);
      expect(() => client.deals.update(id, { title: 'T' })).toThrow(ConfigurationError);
      expect(() => client.contacts.delete(id)).toThrow(ConfigurationError);
    }
    expect(fixture.requests.length).toBe(before);
    await expect(client.contacts.get('con_1..?y#z %')).rejects.toSatisfy(NotFoundError.isInstance);
    expect(fixture.requests.at(-1)?.path).toBe('/api/contacts/con_1..%3Fy%23z%20%25');
  });

  it('refuses a plain http baseUrl except on this machine, unless allowInsecureHttp', () => {
    const token = 'hns_sa_1.secret';
    for (const baseUrl of [
      'http://followup.example.com',
      'http://10.0.0.5:3000',
      'http://[2001:db8::1]',
    ]) {
      expect(() => new FollowUp({ token, baseUrl })).toThrow(/https/);
      expect(new FollowUp({ token, baseUrl, allowInsecureHttp: true }).baseUrl).toBe(baseUrl);
    }
    for (const baseUrl of [
      'http://localhost:3000',
      'http://api.localhost',
      'http://127.0.0.1:3000',
      'http://127.1.2.3',
      'http://[::1]:3000',
      'https://followup.example.com',
    ]) {
      expect(new FollowUp({ token, baseUrl }).baseUrl).toBe(baseUrl);
    }
  });

  it('gives { data, response } with withResponse()', async () => {
    const { client } = clientFor(fixture);
    const { data, response } = await client.contacts.get('con_00000001').withResponse();
    expect(data.id).toBe('con_00000001');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    const listed = await client.contacts.list({ limit: 2 }).withResponse();
    expect(listed.data.items).toHaveLength(2);
    expect(listed.response.status).toBe(200);
    const counted = await client.contacts.count().withResponse();
    expect(counted.data).toBe(3);
  });
});

describe('deals, sequences, campaigns, users, messages', () => {
  it('covers the deal calls', async () => {
    const { client } = clientFor(fixture);
    expect(await client.deals.count()).toBe(2);
    const deal = await client.deals.create({
      contactId: 'con_00000000',
      title: 'Annual plan',
      amountCents: 120_000,
      currency: 'EUR',
    });
    expect(deal.stage).toBe('OPEN');
    expect((await client.deals.update(deal.id, { stage: 'WON' })).stage).toBe('WON');
    const titles: string[] = [];
    for await (const item of client.deals.list()) titles.push(item.title);
    expect(titles).toEqual(['Deal 0', 'Deal 1', 'Annual plan']);
    await client.deals.delete(deal.id);
  });

  it('covers sequences, campaigns and users', async () => {
    const { client } = clientFor(fixture);
    const sequence = await client.sequences.create({
      name: 'Onboarding',
      steps: [{ action: 'EMAIL', delayHours: 0 }],
    });
    expect(sequence).toMatchObject({ name: 'Onboarding', status: 'DRAFT' });
    expect((await client.sequences.update(sequence.id, { status: 'ACTIVE' })).status).toBe(
      'ACTIVE',
    );
    expect((await client.sequences.list()).items.map((item) => item.id)).toEqual([sequence.id]);

    const campaign = await client.campaigns.create({ name: 'Spring' });
    expect((await client.campaigns.get(campaign.id)).name).toBe('Spring');
    await client.campaigns.delete(campaign.id);
    expect((await client.campaigns.list()).items).toEqual([]);

    const user = await client.users.create({
      email: 'ada@example.com',
      name: 'Ada',
      role: 'AGENT',
    });
    expect((await client.users.update(user.id, { role: 'MANAGER' })).role).toBe('MANAGER');
    expect((await client.users.get(user.id)).email).toBe('ada@example.com');
  });

  it('lists inbox messages', async () => {
    const { client } = clientFor(fixture);
    const page = await client.messages.list({ limit: 1 });
    expect(page.items.map((message) => message.subject)).toEqual(['Subject 0']);
    expect(page.hasNextPage()).toBe(true);
  });
});

describe('inbox', () => {
  it('sends a message with the secret header and without the bearer token', async () => {
    const { client } = clientFor(fixture);
    const result = await client.inbox.send(
      { from: 'ada@example.com', subject: 'Hello', text: 'Hi there' },
      { secret: INBOX_SECRET },
    );
    expect(result.id).toMatch(/^msg_/);
    const request = fixture.requests.at(-1);
    expect(request?.headers['x-service-webhook-secret']).toBe(INBOX_SECRET);
    expect(request?.headers.authorization).toBeUndefined();
    const page = await client.messages.list({ limit: 200 });
    expect(page.items.at(-1)).toMatchObject({ from: 'ada@example.com', text: 'Hi there' });
  });

  it('maps a wrong secret to AuthenticationError and refuses one that is no header value', async () => {
    const { client } = clientFor(fixture);
    const error = await client.inbox
      .send({ from: 'a@example.com', subject: 's' }, { secret: 'wrong' })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(AuthenticationError.isInstance(error)).toBe(true);
    expect((error as AuthenticationError).code).toBe('webhook_secret_invalid');
    expect(() =>
      client.inbox.send({ from: 'a', subject: 's' }, { secret: 42 } as unknown as {
        secret: string;
      }),
    ).toThrow(ConfigurationError);
    let thrown: unknown;
    try {
      client.inbox.send({ from: 'a', subject: 's' }, { secret: 'abc\r\nX-Injected: 1' });
    } catch (error) {
      thrown = error;
    }
    expect(ConfigurationError.isInstance(thrown)).toBe(true);
    expect((thrown as Error).message).not.toContain('X-Injected');
  });
});

describe('inbox without a secret', () => {
  it('sends no secret header, for an open inbox; a server with a secret refuses it', async () => {
    const { client } = clientFor(fixture);
    // The fixture's inbox has a secret: its 401 is what a server that has one answers.
    const error = await client.inbox.send({ from: 'a@example.com', subject: 's' }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    const request = fixture.requests.at(-1);
    expect(request?.path).toBe('/api/inbox/webhook');
    expect(Object.keys(request?.headers ?? {})).not.toContain('x-service-webhook-secret');
    expect(request?.headers.authorization).toBeUndefined();
    expect(AuthenticationError.isInstance(error)).toBe(true);
    expect((error as AuthenticationError).code).toBe('webhook_secret_invalid');
  });
});

describe('me', () => {
  it('tells who the token belongs to, and is typed', async () => {
    const { client } = clientFor(fixture);
    const me = await client.me();
    expect(me).toEqual({
      type: 'service_account',
      id: 'sa_01JTESTACCOUNT',
      name: 'fixture',
      role: 'ADMIN',
      capabilities: ['contacts.read', 'contacts.write'],
      token: { id: 'tok_01JTESTTOKEN', label: 'tests', expiresAt: null },
    });
    expect(fixture.requests.at(-1)).toMatchObject({ method: 'GET', path: '/api/me' });
    const { data, response } = await client.me().withResponse();
    expect(data.token?.id).toBe('tok_01JTESTTOKEN');
    expect(response.status).toBe(200);
  });
});

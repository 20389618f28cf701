import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  type Contact,
  InternalServerError,
  KeysetPage,
  ResponseValidationError,
} from '../src/index.js';
import { type Fixture, startFixture } from './fixture-server.js';
import { clientFor } from './helpers.js';

let keyset: Fixture;
let older: Fixture;
beforeAll(async () => {
  keyset = await startFixture({ contacts: 1_000, deals: 30, keyset: true });
  older = await startFixture({ contacts: 120 });
});
afterAll(async () => {
  await keyset.close();
  await older.close();
});

const ids = (contacts: readonly Contact[]) => contacts.map((contact) => contact.id);
const contactId = (index: number) => `con_${String(index).padStart(8, '0')}`;

describe('contacts and deals lists', () => {
  it('walks by nextCursor, sending the filters and sort with every page, never offset', async () => {
    const { client } = clientFor(keyset);
    const before = keyset.requests.length;
    const seen: string[] = [];
    for await (const contact of client.contacts.list({
      limit: 100,
      lifecycle: ['PATIENT', 'LEAD'],
      sort: 'createdAt',
    })) {
      seen.push(contact.id);
    }
    // Lifecycles cycle LEAD, PROSPECT, PATIENT, INACTIVE: indexes 0 and 2 of every four.
    const expected = Array.from({ length: 1_000 }, (_, index) => index)
      .filter((index) => index % 4 === 0 || index % 4 === 2)
      .map(contactId);
    expect(seen).toEqual(expected);
    const sent = keyset.requests.slice(before);
    expect(sent).toHaveLength(5);
    for (const request of sent) {
      expect(request.query).toMatchObject({ limit: '100', sort: 'createdAt' });
      expect(request.repeated).toEqual({ lifecycle: ['PATIENT', 'LEAD'] });
      expect(request.query.offset).toBeUndefined();
    }
    expect(sent[0]?.query.cursor).toBeUndefined();
    expect(sent.slice(1).every((request) => typeof request.query.cursor === 'string')).toBe(true);
  });

  it('exposes nextCursor and the cursor of each page, and resumes from one', async () => {
    const { client } = clientFor(keyset);
    const first = await client.contacts.list({ limit: 10 });
    expect(first).toBeInstanceOf(KeysetPage);
    expect(first.cursor).toBeUndefined();
    expect(first.nextCursor).toEqual(expect.any(String));
    expect(first.nextPageParams()).toEqual({ offset: 10, limit: 10, cursor: first.nextCursor });
    const second = await first.getNextPage();
    expect(second.cursor).toBe(first.nextCursor);
    expect(second.offset).toBe(10);
    const resumed = await client.contacts.list({ limit: 10, cursor: first.nextCursor as string });
    expect(ids(resumed.items)).toEqual(ids(second.items));
    const last = await client.contacts.list({ limit: 10, offset: 990 });
    expect(last.nextCursor).toBeNull();
    expect(last.hasNextPage()).toBe(false);
  });

  it('hands an offset page over to the cursor', async () => {
    const { client } = clientFor(keyset);
    const before = keyset.requests.length;
    const seen: string[] = [];
    for await (const contact of client.contacts.list({ limit: 200, offset: 600 })) {
      seen.push(contact.id);
    }
    expect(seen).toEqual(Array.from({ length: 400 }, (_, index) => contactId(600 + index)));
    const sent = keyset.requests.slice(before);
    expect(sent[0]?.query).toMatchObject({ offset: '600' });
    expect(sent.slice(1).every((request) => request.query.offset === undefined)).toBe(true);
  });

  it('says where to resume by cursor after a failed page', async () => {
    const { client } = clientFor(keyset, { maxRetries: 0 });
    const first = await client.contacts.list({ limit: 100 });
    keyset.script('GET', '/api/contacts', { status: 500, body: { code: 'internal' } });
    const failure = (await first
      .getNextPage()
      .catch((error: unknown) => error)) as InternalServerError;
    expect(InternalServerError.isInstance(failure)).toBe(true);
    expect(failure.resumeFrom).toEqual({ cursor: first.nextCursor });
    // The walk goes on by cursor, so the message names the cursor, never an offset.
    expect(failure.message).toContain(`{ cursor: "${first.nextCursor}" }`);
    expect(failure.message).not.toContain('offset: ');
    const resumed = await client.contacts.list({ limit: 100, ...failure.resumeFrom });
    expect(resumed.items[0]?.id).toBe(contactId(100));
  });

  it('stops on a nextCursor it already followed instead of looping', async () => {
    const { client } = clientFor(keyset);
    const contact = (await client.contacts.list({ limit: 1 })).items[0];
    keyset.script('GET', '/api/contacts', { body: { contacts: [contact], nextCursor: 'A' } });
    keyset.script('GET', '/api/contacts', { body: { contacts: [contact], nextCursor: 'A' } });
    const error = await (async () => {
      for await (const _contact of client.contacts.list()) {
        // walk
      }
    })().catch((caught: unknown) => caught);
    expect(ResponseValidationError.isInstance(error)).toBe(true);
  });

  it('filters deals by stage and sends updatedSince as ISO 8601', async () => {
    const { client } = clientFor(keyset);
    const before = keyset.requests.length;
    const page = await client.deals.list({
      stage: 'OPEN',
      updatedSince: new Date('2026-03-01T10:00:00+01:00'),
      sort: '-updatedAt',
    });
    expect(page.items).toHaveLength(30);
    expect(keyset.requests[before]?.query).toMatchObject({
      stage: 'OPEN',
      updatedSince: '2026-03-01T09:00:00.000Z',
      sort: '-updatedAt',
    });
  });

  it('searches deals by q with the other filters, and counts with the same filters', async () => {
    const { client } = clientFor(keyset);
    const before = keyset.requests.length;
    await client.deals.list({ q: 'Annual p', stage: ['OPEN', 'WON'], sort: '-createdAt' });
    expect(keyset.requests[before]).toMatchObject({
      path: '/api/deals',
      query: { q: 'Annual p', sort: '-createdAt' },
      repeated: { stage: ['OPEN', 'WON'] },
    });
    keyset.script('GET', '/api/deals/count', { body: { count: 7 } });
    const counted = await client.deals.count({
      q: 'renewal',
      stage: 'OPEN',
      updatedSince: new Date('2026-03-01T10:00:00+01:00'),
    });
    expect(counted).toBe(7);
    expect(keyset.requests.at(-1)).toMatchObject({
      path: '/api/deals/count',
      query: { q: 'renewal', stage: 'OPEN', updatedSince: '2026-03-01T09:00:00.000Z' },
    });
    // Filters and request options together; request options alone, as count always took them.
    await client.deals.count({ q: 're' }, { headers: { 'x-trace': 'one' } });
    expect(keyset.requests.at(-1)).toMatchObject({ query: { q: 're' } });
    expect(keyset.requests.at(-1)?.headers['x-trace']).toBe('one');
    await client.deals.count({ headers: { 'x-trace': 'two' } });
    expect(keyset.requests.at(-1)?.query).toEqual({});
    expect(keyset.requests.at(-1)?.headers['x-trace']).toBe('two');
    expect(await client.deals.count()).toBe(30);
  });

  it('walks by offset against a service without cursors', async () => {
    const { client } = clientFor(older);
    const seen: string[] = [];
    for await (const contact of client.contacts.list({ limit: 50 })) seen.push(contact.id);
    expect(seen).toEqual(Array.from({ length: 120 }, (_, index) => contactId(index)));
    const page = await client.contacts.list({ limit: 50 });
    expect(page.nextCursor).toBeNull();
    expect(page.nextPageParams()).toEqual({ offset: 50, limit: 50 });
  });

  it('refuses bad parameters before any request', () => {
    const { client } = clientFor(keyset);
    const before = keyset.requests.length;
    const bad: unknown[] = [
      { cursor: 'abc', offset: 10 },
      { sort: 'name' },
      { q: '' },
      { q: 'x'.repeat(101) },
      { lifecycle: [] },
      { lifecycle: Array.from({ length: 21 }, () => 'LEAD') },
      { email: 42 },
      { updatedSince: 'yesterday' },
      { updatedSince: new Date(Number.NaN) },
    ];
    for (const params of bad) {
      expect(() => client.contacts.list(params as never), JSON.stringify(params)).toThrow(
        ConfigurationError,
      );
    }
    const badDealFilters: unknown[] = [
      { q: '' },
      { q: 'x'.repeat(101) },
      { q: 42 },
      { stage: [] },
      { updatedSince: 'yesterday' },
    ];
    for (const filters of badDealFilters) {
      const label = JSON.stringify(filters);
      expect(() => client.deals.list(filters as never), label).toThrow(ConfigurationError);
      expect(() => client.deals.count(filters as never), label).toThrow(ConfigurationError);
    }
    expect(keyset.requests.length).toBe(before);
  });
});

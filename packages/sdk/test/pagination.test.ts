import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuditEntry,
  AuthenticationError,
  ConfigurationError,
  type Contact,
  CursorPage,
  FollowUpError,
  InternalServerError,
  OffsetPage,
  ResponseValidationError,
} from '../src/index.js';
import { type Fixture, startFixture } from './fixture-server.js';
import { clientFor } from './helpers.js';

const SIZES = [0, 1, 50, 51, 10_000] as const;
const fixtures = new Map<number, Fixture>();

beforeAll(async () => {
  for (const size of SIZES) {
    fixtures.set(size, await startFixture({ contacts: size, auditEntries: size }));
  }
});
afterAll(async () => {
  for (const fixture of fixtures.values()) await fixture.close();
});

function fixtureOf(size: number): Fixture {
  return fixtures.get(size) as Fixture;
}

function expectedIds(prefix: string, size: number): string[] {
  return Array.from({ length: size }, (_, index) => `${prefix}_${String(index).padStart(8, '0')}`);
}

describe.each(SIZES)('walking %i items', (size) => {
  it.each([undefined, 50, 200])('offset pages, limit %s', async (limit) => {
    const fixture = fixtureOf(size);
    const { client } = clientFor(fixture);
    const before = fixture.count('/api/contacts');
    const ids: string[] = [];
    for await (const contact of client.contacts.list(limit === undefined ? {} : { limit })) {
      ids.push(contact.id);
    }
    expect(ids).toEqual(expectedIds('con', size));
    const pageSize = limit ?? 50;
    // A full page may be followed by more, so a walk ends on a short (or empty) page.
    expect(fixture.count('/api/contacts') - before).toBe(Math.floor(size / pageSize) + 1);
    const sent = fixture.requests.filter((request) => request.path === '/api/contacts').at(-1);
    expect(sent?.query.limit).toBe(String(pageSize));
  });

  it.each([undefined, 50, 200])('cursor pages, limit %s', async (limit) => {
    const fixture = fixtureOf(size);
    const { client } = clientFor(fixture);
    const before = fixture.count('/api/audit');
    const ids: string[] = [];
    for await (const entry of client.audit.list(limit === undefined ? {} : { limit })) {
      ids.push(entry.id);
    }
    expect(ids).toEqual(expectedIds('aud', size));
    const pageSize = limit ?? 50;
    expect(fixture.count('/api/audit') - before).toBe(Math.max(1, Math.ceil(size / pageSize)));
  });
});

describe('pages', () => {
  it('awaits one page with hasNextPage and getNextPage', async () => {
    const fixture = fixtureOf(51);
    const { client } = clientFor(fixture);
    const first = await client.contacts.list();
    expect(first).toBeInstanceOf(OffsetPage);
    expect(first.items).toHaveLength(50);
    expect(first.hasNextPage()).toBe(true);
    expect(first.nextPageParams()).toEqual({ offset: 50, limit: 50 });
    const second = await first.getNextPage();
    expect(second.items.map((contact: Contact) => contact.id)).toEqual(['con_00000050']);
    expect(second.hasNextPage()).toBe(false);
    await expect(second.getNextPage()).rejects.toSatisfy(FollowUpError.isInstance);
  });

  it('walks pages with pages(), and items from a page onwards', async () => {
    const fixture = fixtureOf(10_000);
    const { client } = clientFor(fixture);
    const lengths: number[] = [];
    for await (const page of client.contacts.list({ limit: 200, offset: 9_500 }).pages()) {
      lengths.push(page.items.length);
    }
    expect(lengths).toEqual([200, 200, 100]);
    const page = await client.audit.list({ limit: 200 });
    expect(page).toBeInstanceOf(CursorPage);
    let count = 0;
    for await (const _entry of page) count++;
    expect(count).toBe(10_000);
  });

  it('makes no further request after a break', async () => {
    const fixture = fixtureOf(10_000);
    const { client } = clientFor(fixture);
    const before = fixture.count('/api/contacts');
    let seen = 0;
    for await (const _contact of client.contacts.list({ limit: 50 })) {
      seen++;
      if (seen === 75) break;
    }
    // Let any stray request arrive before counting.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fixture.count('/api/contacts') - before).toBe(2);
  });

  it('refuses a limit above 200 (and other bad parameters) before any request', () => {
    const fixture = fixtureOf(51);
    const { client } = clientFor(fixture);
    const before = fixture.requests.length;
    expect(() => client.contacts.list({ limit: 201 })).toThrow(ConfigurationError);
    expect(() => client.audit.list({ limit: 500 })).toThrow(ConfigurationError);
    expect(() => client.messages.list({ limit: 0 })).toThrow(ConfigurationError);
    expect(() => client.deals.list({ limit: 1.5 })).toThrow(ConfigurationError);
    expect(() => client.users.list({ offset: -1 })).toThrow(ConfigurationError);
    expect(() => client.audit.list({ cursor: '' })).toThrow(ConfigurationError);
    expect(fixture.requests.length).toBe(before);
  });

  it('gives no resume point for a bad option, which would fail again', async () => {
    const fixture = fixtureOf(51);
    const { client } = clientFor(fixture);
    const error = (await client.contacts
      .list({}, { timeout: -1 })
      .catch((caught: unknown) => caught)) as ConfigurationError;
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error.resumeFrom).toBeUndefined();
  });

  it('goes on past an empty page whose nextCursor is not null', async () => {
    const fixture = fixtureOf(51);
    const { client } = clientFor(fixture);
    const next = Buffer.from('aud_00000009').toString('base64url');
    fixture.script('GET', '/api/audit', { body: { entries: [], nextCursor: next } });
    const ids: string[] = [];
    for await (const entry of client.audit.list({ limit: 20 })) ids.push(entry.id);
    expect(ids).toEqual(expectedIds('aud', 51).slice(10));
  });

  it('stops with an error on a repeated cursor instead of looping', async () => {
    const fixture = fixtureOf(51);
    const { client } = clientFor(fixture);
    const entry = {
      id: 'aud_x',
      occurredAt: '2026-01-01T00:00:00.000Z',
      action: 'token.issued',
      actor: { type: 'system' },
      target: { type: 'token', id: 'tok_1' },
      metadata: {},
    };
    fixture.script('GET', '/api/audit', { body: { entries: [entry], nextCursor: 'A' } });
    fixture.script('GET', '/api/audit', { body: { entries: [entry], nextCursor: 'B' } });
    fixture.script('GET', '/api/audit', { body: { entries: [entry], nextCursor: 'A' } });
    const before = fixture.count('/api/audit');
    let seen = 0;
    const error = await (async () => {
      for await (const _entry of client.audit.list()) seen++;
    })().catch((caught: unknown) => caught);
    expect(ResponseValidationError.isInstance(error)).toBe(true);
    expect(seen).toBe(2);
    expect(fixture.count('/api/audit') - before).toBe(3);
  });

  it('resumes an offset walk after a failed page, without duplicates', async () => {
    const fixture = fixtureOf(10_000);
    const { client } = clientFor(fixture, { maxRetries: 0 });
    fixture.script(
      'GET',
      '/api/contacts',
      { status: 500, body: { code: 'internal' } },
      { when: (query) => query.offset === '4000' },
    );
    const ids: string[] = [];
    let failure: unknown;
    try {
      for await (const contact of client.contacts.list({ limit: 200 })) ids.push(contact.id);
    } catch (error) {
      failure = error;
    }
    expect(InternalServerError.isInstance(failure)).toBe(true);
    const resumeFrom = (failure as InternalServerError).resumeFrom;
    expect(resumeFrom).toEqual({ offset: 4000 });
    expect((failure as Error).message).toContain(
      'To resume the walk, call list() again with the same parameters and { offset: 4000 }.',
    );
    for await (const contact of client.contacts.list({ limit: 200, ...resumeFrom })) {
      ids.push(contact.id);
    }
    expect(ids).toEqual(expectedIds('con', 10_000));
  });

  it('resumes a cursor walk after a failed page, without duplicates', async () => {
    const fixture = fixtureOf(10_000);
    const { client } = clientFor(fixture, { maxRetries: 0 });
    let pages = 0;
    fixture.script(
      'GET',
      '/api/audit',
      { status: 503, body: { code: 'unavailable' } },
      { when: (query) => query.cursor !== undefined && ++pages === 7 },
    );
    const ids: string[] = [];
    let failure: unknown;
    try {
      for await (const entry of client.audit.list({ limit: 100 })) ids.push(entry.id);
    } catch (error) {
      failure = error;
    }
    const resumeFrom = (failure as FollowUpError).resumeFrom;
    const cursor = Buffer.from('aud_00000699').toString('base64url');
    expect(resumeFrom).toEqual({ cursor });
    expect((failure as Error).message).toContain(
      `To resume the walk, call list() again with { cursor: "${cursor}" } in place of any offset or after, and the same other parameters.`,
    );
    for await (const entry of client.audit.list({ limit: 100, ...resumeFrom })) ids.push(entry.id);
    expect(ids).toEqual(expectedIds('aud', 10_000));
  });

  it('speaks of no walk to resume when the first page fails, awaited or iterated', async () => {
    const fixture = fixtureOf(1);
    const { client } = clientFor(fixture, { maxRetries: 0 });
    fixture.script('GET', '/api/contacts', { status: 401, body: { code: 'token_invalid' } });
    const single = (await client.contacts
      .list()
      .catch((caught: unknown) => caught)) as FollowUpError;
    expect(AuthenticationError.isInstance(single)).toBe(true);
    expect(single.message).not.toMatch(/resume/i);
    expect(single.resumeFrom).toBeUndefined();
    fixture.script('GET', '/api/audit', { status: 500, body: {} });
    const audit = (await client.audit.list().catch((caught: unknown) => caught)) as FollowUpError;
    expect(audit.message).not.toMatch(/resume/i);
    expect(audit.resumeFrom).toBeUndefined();
    fixture.script('GET', '/api/contacts', { status: 500, body: {} });
    const iterated = await (async () => {
      for await (const _contact of client.contacts.list({ offset: 7 })) break;
    })().catch((caught: unknown) => caught as FollowUpError);
    expect(InternalServerError.isInstance(iterated)).toBe(true);
    expect((iterated as FollowUpError).message).not.toMatch(/resume/i);
    expect((iterated as FollowUpError).resumeFrom).toBeUndefined();
  });

  it('types the items of each list', async () => {
    const fixture = fixtureOf(1);
    const { client } = clientFor(fixture);
    const entries: AuditEntry[] = [];
    for await (const entry of client.audit.list()) entries.push(entry);
    expect(entries[0]?.actor.type).toBe('operator');
  });
});

afterEach(() => {
  // Every scripted answer of a test must have been used by it.
  for (const fixture of fixtures.values()) expect(fixture.pendingScripts()).toBe(0);
});

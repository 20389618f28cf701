import { type ContactChange, contactChangeListSchema } from '@followup/sdk';
import { describe, expect, it } from 'vitest';
import { testDriver, transactionsSettled } from '../../test/support/database.js';
import { useTestServer } from '../../test/support/server.js';
import { listFingerprint } from '../list-cursor.js';
import { pruneExpired } from '../retention/retention.js';

const server = useTestServer();

async function call(
  token: string,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  body?: object,
) {
  return server().app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}` },
    ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
  });
}

interface Page {
  changes: ContactChange[];
  nextCursor: string;
  hasMore: boolean;
}

/**
 * One page of the feed, once every transaction older than the test's last change has ended (see
 * transactionsSettled), unless `settle` is false.
 */
async function feed(token: string, query: string, settle = true): Promise<Page> {
  if (settle) await transactionsSettled(server().database);
  const response = await call(token, 'GET', `/api/contacts/changes?${query}`);
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json();
  expect(contactChangeListSchema.parse(body)).toEqual(body);
  return body;
}

/** Reads the feed from `cursor` until it is caught up; the changes and the position after them. */
async function catchUp(token: string, cursor: string | undefined, limit: number) {
  const changes: ContactChange[] = [];
  let position = cursor;
  let more = true;
  while (more) {
    const page = await feed(token, `limit=${limit}${position ? `&cursor=${position}` : ''}`);
    changes.push(...page.changes);
    position = page.nextCursor;
    more = page.hasMore;
  }
  return { changes, position: position as string };
}

const describeChange = (change: ContactChange) =>
  change.type === 'changed' ? `changed ${change.contact.firstName}` : `deleted ${change.id}`;

describe('GET /api/contacts/changes', () => {
  it('lists creates, updates and deletes in commit order, each contact at its latest state', async () => {
    const { token: admin } = await server().tokenFor('ADMIN');
    const made = [];
    for (const firstName of ['A', 'B', 'C']) {
      server().clock.advance(1000);
      made.push((await call(admin, 'POST', '/api/contacts', { firstName, lastName: 'X' })).json());
    }
    server().clock.advance(1000);
    await call(admin, 'PATCH', `/api/contacts/${made[0].id}`, { firstName: 'A2' });
    server().clock.advance(1000);
    await call(admin, 'DELETE', `/api/contacts/${made[1].id}`);
    const { token } = await server().tokenFor('READONLY');
    const page = await feed(token, 'limit=10');
    expect(page.changes.map(describeChange)).toEqual([
      'changed C',
      'changed A2',
      `deleted ${made[1].id}`,
    ]);
    expect(page.changes[2]).toEqual({
      type: 'deleted',
      id: made[1].id,
      deletedAt: '2026-03-01T09:00:05.000Z',
      cursor: expect.any(String),
    });
    expect(page.hasMore).toBe(false);
    expect(page.nextCursor).toBe(page.changes[2]?.cursor);
    // Resuming from a change's cursor gives exactly what came after it.
    const after = await feed(token, `cursor=${page.changes[0]?.cursor}`);
    expect(after.changes.map(describeChange)).toEqual(['changed A2', `deleted ${made[1].id}`]);
    // And from the end: nothing, and the same position.
    expect(await feed(token, `cursor=${page.nextCursor}`)).toEqual({
      changes: [],
      nextCursor: page.nextCursor,
      hasMore: false,
    });
  });

  it('keeps a replica exact while writes continue between pages', async () => {
    const { token: admin } = await server().tokenFor('ADMIN');
    const { token } = await server().tokenFor('READONLY');
    const ids: string[] = [];
    const create = async (firstName: string) => {
      server().clock.advance(1000);
      const contact = (
        await call(admin, 'POST', '/api/contacts', { firstName, lastName: 'X' })
      ).json();
      ids.push(contact.id);
    };
    for (let n = 0; n < 6; n++) await create(`c${n}`);
    const replica = new Map<string, string>();
    let cursor: string | undefined;
    let round = 0;
    let more = true;
    while (more || round < 4) {
      const page = await feed(token, `limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      for (const change of page.changes) {
        if (change.type === 'changed') replica.set(change.contact.id, change.contact.firstName);
        else replica.delete(change.id);
      }
      cursor = page.nextCursor;
      more = page.hasMore;
      // Writes between pages: behind the cursor, ahead of it, and deletions of both.
      if (round < 4) {
        server().clock.advance(1000);
        await call(admin, 'PATCH', `/api/contacts/${ids[round]}`, { firstName: `u${round}` });
        await call(admin, 'PATCH', `/api/contacts/${ids[5 - round]}`, { firstName: `v${round}` });
        await create(`n${round}`);
        if (round === 1) await call(admin, 'DELETE', `/api/contacts/${ids[0]}`);
        if (round === 2) await call(admin, 'DELETE', `/api/contacts/${ids[5]}`);
      }
      round++;
    }
    const all = (await call(admin, 'GET', '/api/contacts?limit=200')).json().contacts as {
      id: string;
      firstName: string;
    }[];
    expect(new Map(all.map((contact) => [contact.id, contact.firstName]))).toEqual(replica);
    expect(replica.has(ids[0] as string)).toBe(false);
  });

  it('starts at updatedSince; a first walk that finds nothing still hands back a position', async () => {
    const { token: admin } = await server().tokenFor('ADMIN');
    const { token } = await server().tokenFor('READONLY');
    await call(admin, 'POST', '/api/contacts', { firstName: 'Old', lastName: 'X' });
    const empty = await feed(token, 'updatedSince=2026-03-01T10:00:00Z');
    expect(empty.changes).toEqual([]);
    server().clock.set('2026-03-01T11:00:00.000Z');
    await call(admin, 'POST', '/api/contacts', { firstName: 'New', lastName: 'X' });
    expect((await feed(token, `cursor=${empty.nextCursor}`)).changes.map(describeChange)).toEqual([
      'changed New',
    ]);
    expect(
      (await feed(token, 'updatedSince=2026-03-01T10:00:00Z')).changes.map(describeChange),
    ).toEqual(['changed New']);
  });

  it.each([
    ['cursor=nonsense', 'cursor'],
    ['cursor=CURSOR&updatedSince=2026-03-01T00:00:00Z', 'cursor'],
    ['offset=1', 'offset'],
    ['limit=201', 'limit'],
    ['updatedSince=soon', 'updatedSince'],
  ])('answers 400 validation_failed for %s', async (query, path) => {
    const { token } = await server().tokenFor('READONLY');
    const cursor = (await feed(token, '')).nextCursor;
    const response = await call(
      token,
      'GET',
      `/api/contacts/changes?${query.replace('CURSOR', cursor)}`,
    );
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'validation_failed',
      errors: [expect.objectContaining({ path })],
    });
  });

  it('refuses a list cursor, and a list refuses a feed cursor', async () => {
    const { token: admin } = await server().tokenFor('ADMIN');
    for (const firstName of ['A', 'B']) {
      await call(admin, 'POST', '/api/contacts', { firstName, lastName: 'X' });
    }
    const listCursor = (await call(admin, 'GET', '/api/contacts?limit=1&sort=updatedAt')).json()
      .nextCursor;
    expect(
      (await call(admin, 'GET', `/api/contacts/changes?cursor=${listCursor}`)).statusCode,
    ).toBe(400);
    const feedCursor = (await feed(admin, 'limit=1')).nextCursor;
    expect(
      (await call(admin, 'GET', `/api/contacts?limit=1&sort=updatedAt&cursor=${feedCursor}`))
        .statusCode,
    ).toBe(400);
  });

  it('after the tombstone retention, a position from before a pruned deletion is told to resync', async () => {
    const { token: admin } = await server().tokenFor('ADMIN');
    const { token } = await server().tokenFor('READONLY');
    const made: { id: string }[] = [];
    for (const firstName of ['Gone', 'Later', 'Kept']) {
      made.push((await call(admin, 'POST', '/api/contacts', { firstName, lastName: 'X' })).json());
    }
    const beforeDeletes = (await catchUp(token, undefined, 50)).position;
    server().clock.set('2026-03-02T00:00:00.000Z');
    await call(admin, 'DELETE', `/api/contacts/${made[0]?.id}`);
    const afterFirstDelete = (await catchUp(token, beforeDeletes, 50)).position;
    // 91 days later, a second deletion; then the retention (90 days by default) runs.
    server().clock.set('2026-06-01T00:00:00.000Z');
    await call(admin, 'DELETE', `/api/contacts/${made[1]?.id}`);
    const pruned = await pruneExpired(server().database, { now: server().clock.now() });
    expect(pruned.contactTombstones).toBe(1);

    // A position from before the pruned deletion would silently miss it: 410 resync_required.
    const stale = await call(token, 'GET', `/api/contacts/changes?cursor=${beforeDeletes}`);
    expect(stale.statusCode).toBe(410);
    expect(stale.headers['content-type']).toContain('application/problem+json');
    expect(stale.json()).toMatchObject({
      type: 'urn:followup:problem:resync_required',
      status: 410,
      code: 'resync_required',
    });
    const staleSince = await call(
      token,
      'GET',
      '/api/contacts/changes?updatedSince=2026-03-01T00:00:00Z',
    );
    expect(staleSince.statusCode).toBe(410);
    expect(staleSince.json().code).toBe('resync_required');

    // A position after it, or a time after the cutoff, goes on as before.
    expect((await feed(token, `cursor=${afterFirstDelete}`)).changes.map(describeChange)).toEqual([
      `deleted ${made[1]?.id}`,
    ]);
    expect(
      (await feed(token, 'updatedSince=2026-03-03T00:00:00Z')).changes.map(describeChange),
    ).toEqual([`deleted ${made[1]?.id}`]);
    // A sync from the start (what a client told to resync does) works and no longer has the
    // pruned tombstone; the contact it deleted is simply absent.
    const resync = await catchUp(token, undefined, 2);
    expect(resync.changes.map(describeChange)).toEqual(['changed Kept', `deleted ${made[1]?.id}`]);
    expect((await feed(token, `cursor=${resync.position}`)).changes).toEqual([]);
    // The horizon only moves forward: a prune that finds nothing leaves it.
    expect(
      (await pruneExpired(server().database, { now: server().clock.now() })).contactTombstones,
    ).toBe(0);
    expect(
      (await call(token, 'GET', `/api/contacts/changes?cursor=${beforeDeletes}`)).statusCode,
    ).toBe(410);
  });

  // Rows written before migration 25 hold transaction id 1, and a cursor made then holds a
  // change number alone: resuming from it returns what came after it, old rows and new ones.
  it('resumes from a cursor made before changes recorded their transaction', async () => {
    const { token: admin } = await server().tokenFor('ADMIN');
    const made = [];
    for (const firstName of ['A', 'B', 'C']) {
      made.push((await call(admin, 'POST', '/api/contacts', { firstName, lastName: 'X' })).json());
    }
    await server().database.query(
      `UPDATE contacts SET change_xid = '1' WHERE id = ANY($1::text[])`,
      [[made[0].id, made[1].id]],
    );
    const { rows } = await server().database.query<{ seq: string }>(
      'SELECT change_seq::text AS seq FROM contacts WHERE id = $1',
      [made[0].id],
    );
    const legacy = Buffer.from(
      JSON.stringify(['l1', listFingerprint(['contacts.changes']), rows[0]?.seq]),
    ).toString('base64url');
    const { token } = await server().tokenFor('READONLY');
    const page = await feed(token, `cursor=${legacy}`);
    expect(page.changes.map(describeChange)).toEqual(['changed B', 'changed C']);
  });

  it('needs contacts.read', async () => {
    const response = await server().app.inject({ method: 'GET', url: '/api/contacts/changes' });
    expect(response.statusCode).toBe(401);
  });

  // Two writers at once exist only on PostgreSQL. The slow writer took its change number (and
  // its transaction id) first, the fast one commits first: writers take no lock, so a reader
  // must not show the fast change until the slow one has ended, or it would hand out a position
  // after the fast change and never show the slow one.
  it.runIf(testDriver === 'postgres')(
    'never hands out a position that passes a change committed later',
    async () => {
      const { token: admin } = await server().tokenFor('ADMIN');
      const early = (
        await call(admin, 'POST', '/api/contacts', { firstName: 'E', lastName: 'X' })
      ).json();
      const { token } = await server().tokenFor('READONLY');
      const start = (await feed(token, '')).nextCursor;
      let release: () => void = () => {};
      const mayCommit = new Promise<void>((resolve) => {
        release = resolve;
      });
      let written: () => void = () => {};
      const hasWritten = new Promise<void>((resolve) => {
        written = resolve;
      });
      // A writer as the routes write: the row takes its change number and transaction id.
      const slow = server().database.transaction(async (transaction) => {
        await transaction.query(
          `INSERT INTO contacts (id, first_name, last_name, lifecycle, created_at, updated_at)
           VALUES ('con_slow', 'Slow', 'X', 'LEAD', now(), now())`,
        );
        written();
        await mayCommit;
      });
      await hasWritten;
      // Not held up by the slow writer: it commits while the slow one is still open.
      const fast = await call(admin, 'PATCH', `/api/contacts/${early.id}`, { firstName: 'Fast' });
      expect(fast.statusCode).toBe(200);
      const during = await feed(token, `cursor=${start}`, false);
      expect(during.changes).toEqual([]);
      release();
      await slow;
      const rest = await catchUp(token, during.nextCursor, 10);
      expect([...during.changes, ...rest.changes].map(describeChange)).toEqual([
        'changed Slow',
        'changed Fast',
      ]);
    },
  );
});

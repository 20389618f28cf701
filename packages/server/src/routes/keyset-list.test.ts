import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testDriver, transactionsSettled } from '../../test/support/database.js';
import { useTestServer } from '../../test/support/server.js';
import { cursorTimestamp } from '../list-cursor.js';
import { prefixSource } from '../stores/resource-list-store.js';

const server = useTestServer();

async function get(token: string, url: string) {
  return server().app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
}

async function send(
  token: string,
  method: 'POST' | 'PATCH' | 'DELETE',
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

const id = (n: number) => `con_${String(n).padStart(26, '0')}`;

/** n contacts, con_…1 to con_…n, all created at one instant (ties broken by id). */
async function seed(count: number) {
  await server().database.query(
    `INSERT INTO contacts (id, first_name, last_name, lifecycle, email, created_at, updated_at)
     SELECT 'con_' || lpad(n::text, 26, '0'), 'First' || n, 'Last' || n,
            CASE WHEN n % 3 = 0 THEN 'PATIENT' WHEN n % 3 = 1 THEN 'LEAD' ELSE 'PROSPECT' END,
            'person' || n || '@example.com',
            timestamptz '2026-01-01T00:00:00.123456Z', timestamptz '2026-01-01T00:00:00Z'
       FROM generate_series(1, $1::int) AS n`,
    [count],
  );
  await transactionsSettled(server().database);
}

/**
 * Follows nextCursor from `url` to the end; the ids of every page. First waits until every
 * transaction older than the test's last change has ended, which `sort=updatedAt` waits for
 * (see transactionsSettled).
 */
async function walk(token: string, url: string, from?: string): Promise<string[][]> {
  await transactionsSettled(server().database);
  const pages: string[][] = [];
  let next: string | null = from ?? null;
  do {
    const separator = url.includes('?') ? '&' : '?';
    const response = await get(
      token,
      next === null ? url : `${url}${separator}cursor=${encodeURIComponent(next)}`,
    );
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    pages.push(body.contacts.map((contact: { id: string }) => contact.id));
    next = body.nextCursor;
  } while (next !== null);
  return pages;
}

function expectInvalid(response: { statusCode: number; json(): unknown }, path: string) {
  expect(response.statusCode).toBe(400);
  expect(response.json()).toMatchObject({
    type: 'urn:followup:problem:validation_failed',
    code: 'validation_failed',
    errors: [expect.objectContaining({ path })],
  });
}

describe('keyset pages of /api/contacts', () => {
  it('carries nextCursor on every page, null on the last, and walks every row once', async () => {
    await seed(7);
    const { token } = await server().tokenFor('READONLY');
    const first = (await get(token, '/api/contacts?limit=3')).json();
    expect(Object.keys(first)).toEqual(['contacts', 'nextCursor']);
    expect(first.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(await walk(token, '/api/contacts?limit=3')).toEqual([
      [id(1), id(2), id(3)],
      [id(4), id(5), id(6)],
      [id(7)],
    ]);
    // A full last page: nextCursor is null because no row follows, not because the page is short.
    expect(await walk(token, '/api/contacts?limit=7')).toEqual([[1, 2, 3, 4, 5, 6, 7].map(id)]);
    expect((await get(token, '/api/contacts?limit=7')).json().nextCursor).toBeNull();
  });

  it('keeps offset as it was, and an offset page hands over to the cursor', async () => {
    await seed(6);
    const { token } = await server().tokenFor('READONLY');
    const page = (await get(token, '/api/contacts?limit=2&offset=3')).json();
    expect(page.contacts.map((contact: { id: string }) => contact.id)).toEqual([id(4), id(5)]);
    const next = await get(token, `/api/contacts?limit=2&cursor=${page.nextCursor}`);
    expect(next.json()).toMatchObject({ contacts: [{ id: id(6) }], nextCursor: null });
    expect((await get(token, '/api/contacts?limit=2&offset=6')).json()).toEqual({
      contacts: [],
      nextCursor: null,
    });
  });

  it('sees a row created behind the cursor after it was made, and none twice', async () => {
    await seed(4);
    const { token } = await server().tokenFor('READONLY');
    const { token: agent } = await server().tokenFor('AGENT');
    const first = (await get(token, '/api/contacts?limit=2')).json();
    server().clock.set('2026-06-01T00:00:00.000Z');
    const created = (
      await send(agent, 'POST', '/api/contacts', { firstName: 'New', lastName: 'Comer' })
    ).json();
    const rest = await walk(token, '/api/contacts?limit=2', first.nextCursor);
    expect(rest).toEqual([[id(3), id(4)], [created.id]]);
  });

  it('refuses cursor with offset, a cursor it did not make, and one made for another query', async () => {
    await seed(9);
    const { token } = await server().tokenFor('READONLY');
    const cursor = (await get(token, '/api/contacts?limit=1&lifecycle=LEAD&sort=-createdAt')).json()
      .nextCursor;
    expect(cursor).toEqual(expect.any(String));
    const base = `/api/contacts?cursor=${cursor}`;
    expectInvalid(
      await get(token, `${base}&limit=1&lifecycle=LEAD&sort=-createdAt&offset=0`),
      'cursor',
    );
    expectInvalid(await get(token, '/api/contacts?cursor=bm90LWEtY3Vyc29y'), 'cursor');
    expectInvalid(await get(token, `${base}&limit=2&lifecycle=LEAD&sort=-createdAt`), 'cursor');
    expectInvalid(await get(token, `${base}&limit=1&sort=-createdAt`), 'cursor');
    expectInvalid(await get(token, `${base}&limit=1&lifecycle=LEAD`), 'cursor');
    expectInvalid(await get(token, `${base}&limit=1&lifecycle=PATIENT&sort=-createdAt`), 'cursor');
    const same = await get(token, `${base}&limit=1&lifecycle=LEAD&sort=-createdAt`);
    expect(same.statusCode).toBe(200);
  });

  it('answers any cursor string with a page or a 400, never a 500', async () => {
    await seed(3);
    const { token } = await server().tokenFor('READONLY');
    const real = (await get(token, '/api/contacts?limit=1&sort=updatedAt')).json().nextCursor;
    const forged = (values: unknown[]) =>
      Buffer.from(JSON.stringify(['l1', ...values])).toString('base64url');
    const anyCursor = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 80 }),
      fc.base64String({ maxLength: 200 }).map((text) => text.replaceAll('=', '')),
      fc
        .array(
          fc.oneof(fc.string({ unit: 'binary' }), fc.constant('2026-01-01T00:00:00.000000Z')),
          {
            maxLength: 4,
          },
        )
        .map((values) =>
          forged([
            real ? JSON.parse(Buffer.from(real, 'base64url').toString())[1] : 'x',
            ...values,
          ]),
        ),
      fc.nat({ max: real.length - 1 }).map((cut) => real.slice(0, cut)),
    );
    await fc.assert(
      fc.asyncProperty(
        anyCursor,
        fc.constantFrom('updatedAt', 'createdAt', '-updatedAt'),
        async (cursor, sort) => {
          const response = await get(
            token,
            `/api/contacts?limit=1&sort=${sort}&cursor=${encodeURIComponent(cursor)}`,
          );
          expect([200, 400]).toContain(response.statusCode);
          if (response.statusCode === 400) {
            expect(response.json().code).toBe('validation_failed');
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it.each([
    ['-createdAt', [5, 4, 3, 2, 1]],
    ['createdAt', [1, 2, 3, 4, 5]],
  ])('sorts by %s, a cursor walk and offset pages agreeing', async (sort, order) => {
    await seed(5);
    const { token } = await server().tokenFor('READONLY');
    const pages = await walk(token, `/api/contacts?limit=2&sort=${sort}`);
    expect(pages.flat()).toEqual(order.map(id));
    const byOffset: string[] = [];
    for (const offset of [0, 2, 4]) {
      const page = (await get(token, `/api/contacts?limit=2&sort=${sort}&offset=${offset}`)).json();
      byOffset.push(...page.contacts.map((contact: { id: string }) => contact.id));
    }
    expect(byOffset).toEqual(order.map(id));
  });

  it('sorts by updatedAt in the order changes were made, newest last (or first with -)', async () => {
    const { token: agent } = await server().tokenFor('AGENT');
    const made: string[] = [];
    for (const firstName of ['A', 'B', 'C']) {
      server().clock.advance(1000);
      made.push(
        (await send(agent, 'POST', '/api/contacts', { firstName, lastName: 'X' })).json().id,
      );
    }
    server().clock.advance(1000);
    await send(agent, 'PATCH', `/api/contacts/${made[0]}`, { lastName: 'Changed' });
    const { token } = await server().tokenFor('READONLY');
    expect((await walk(token, '/api/contacts?limit=2&sort=updatedAt')).flat()).toEqual([
      made[1],
      made[2],
      made[0],
    ]);
    expect((await walk(token, '/api/contacts?limit=2&sort=-updatedAt')).flat()).toEqual([
      made[0],
      made[2],
      made[1],
    ]);
    const body = (await get(token, '/api/contacts?sort=updatedAt')).json();
    const stamps = body.contacts.map((contact: { updatedAt: string }) => contact.updatedAt);
    expect(stamps).toEqual([...stamps].sort());
  });
});

describe('cursor positions', () => {
  it('are, to the microsecond, what to_char writes for the same timestamptz, on this database', async () => {
    const instants = [
      '2026-01-01T00:00:00Z',
      '2026-01-01T00:00:00.1Z',
      '2026-01-01T00:00:00.123Z',
      '2026-01-01T00:00:00.000001Z',
      '2026-01-01T00:00:00.123456Z',
      '2026-12-31T23:59:59.999999Z',
      '0001-01-01T00:00:00Z',
      '9999-12-31T23:59:59.5Z',
      '2026-03-29T01:30:00+02:00',
    ];
    const { rows } = await server().database.query<{ text: string; expected: string }>(
      `SELECT t::text AS text,
              to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS expected
         FROM unnest($1::timestamptz[]) AS t`,
      [instants],
    );
    expect(rows).toHaveLength(instants.length);
    for (const { text, expected } of rows) expect(cursorTimestamp(text)).toBe(expected);
  });
});

describe('filters of /api/contacts', () => {
  const ids = (body: { contacts: { id: string }[] }) => body.contacts.map((contact) => contact.id);

  it('filters by lifecycle, repeatable, with offset and with the cursor', async () => {
    await seed(9);
    const { token } = await server().tokenFor('READONLY');
    expect(ids((await get(token, '/api/contacts?lifecycle=PATIENT')).json())).toEqual(
      [3, 6, 9].map(id),
    );
    expect(await walk(token, '/api/contacts?lifecycle=PATIENT&lifecycle=LEAD&limit=2')).toEqual([
      [id(1), id(3)],
      [id(4), id(6)],
      [id(7), id(9)],
    ]);
    expect(
      ids(
        (
          await get(token, '/api/contacts?lifecycle=LEAD&lifecycle=PATIENT&limit=2&offset=2')
        ).json(),
      ),
    ).toEqual([id(4), id(6)]);
    expect(ids((await get(token, '/api/contacts?lifecycle=NOBODY')).json())).toEqual([]);
  });

  it('finds by e-mail exactly, whatever the case', async () => {
    await seed(12);
    const { token } = await server().tokenFor('READONLY');
    expect(ids((await get(token, '/api/contacts?email=PERSON1@Example.COM')).json())).toEqual([
      id(1),
    ]);
    expect(ids((await get(token, '/api/contacts?email=person1')).json())).toEqual([]);
  });

  it('searches a case-insensitive prefix of first name, last name and e-mail', async () => {
    const { token: agent } = await server().tokenFor('AGENT');
    const people = [
      { firstName: 'Ada', lastName: 'Lovelace', email: 'countess@example.com' },
      { firstName: 'Grace', lastName: 'Hopper', email: 'ada.h@example.com' },
      { firstName: 'Alan', lastName: 'Adams' },
      { firstName: 'Linus', lastName: 'Torvalds', email: 'linus@example.com' },
      { firstName: '100%', lastName: 'a_b' },
    ];
    const made: string[] = [];
    for (const person of people) {
      server().clock.advance(1000);
      made.push((await send(agent, 'POST', '/api/contacts', person)).json().id);
    }
    const { token } = await server().tokenFor('READONLY');
    const search = async (q: string) =>
      ids((await get(token, `/api/contacts?q=${encodeURIComponent(q)}`)).json());
    expect(await search('ADA')).toEqual([made[0], made[1], made[2]]);
    expect(await search('lov')).toEqual([made[0]]);
    expect(await search('countess@')).toEqual([made[0]]);
    expect(await search('ovelace')).toEqual([]);
    // LIKE's wildcards are plain characters here.
    expect(await search('100%')).toEqual([made[4]]);
    expect(await search('%')).toEqual([]);
    expect(await search('a_')).toEqual([made[4]]);
    expect(await search('a%')).toEqual([]);
    // With a cursor and with another filter.
    expect((await walk(token, '/api/contacts?q=a&limit=1&sort=-createdAt')).flat()).toEqual([
      made[4],
      made[2],
      made[1],
      made[0],
    ]);
  });

  it('keeps contacts changed at or after updatedSince, in any offset form', async () => {
    const { token: agent } = await server().tokenFor('AGENT');
    const a = (
      await send(agent, 'POST', '/api/contacts', { firstName: 'A', lastName: 'X' })
    ).json();
    server().clock.set('2026-03-02T10:00:00.000Z');
    const b = (
      await send(agent, 'POST', '/api/contacts', { firstName: 'B', lastName: 'X' })
    ).json();
    const { token } = await server().tokenFor('READONLY');
    const since = async (value: string) =>
      ids((await get(token, `/api/contacts?updatedSince=${encodeURIComponent(value)}`)).json());
    expect(await since('2026-03-02T10:00:00Z')).toEqual([b.id]);
    expect(await since('2026-03-02T11:00:00+01:00')).toEqual([b.id]);
    expect(await since('2026-03-02T10:00:00.001Z')).toEqual([]);
    expect(await since('2026-03-01T00:00:00Z')).toEqual([a.id, b.id]);
  });

  it.each([
    ['colour=red', 'colour'],
    ['lifecycle=', 'lifecycle'],
    ['email=', 'email'],
    ['q=', 'q'],
    [`q=${'x'.repeat(101)}`, 'q'],
    ['q=%00', 'q'],
    ['sort=name', 'sort'],
    ['sort=updatedAt&sort=createdAt', 'sort'],
    ['updatedSince=yesterday', 'updatedSince'],
    ['updatedSince=2026-02-30T00:00:00Z', 'updatedSince'],
    ['updatedSince=2026-03-01T00:00:00', 'updatedSince'],
    ['updatedSince=0000-01-01T00:00:00Z', 'updatedSince'],
    ['cursor=', 'cursor'],
    ['limit=10&limit=20', 'limit'],
    [Array.from({ length: 21 }, (_, n) => `lifecycle=L${n}`).join('&'), 'lifecycle'],
  ])('answers 400 validation_failed for %s', async (query, path) => {
    const { token } = await server().tokenFor('READONLY');
    expectInvalid(await get(token, `/api/contacts?${query}`), path);
  });

  // The index serves q: on a table large enough for the planner to care, no sequential scan.
  it.runIf(testDriver === 'postgres')(
    'serves q and cursor pages from indexes (EXPLAIN)',
    async () => {
      await seed(20_000);
      await server().database.query('ANALYZE contacts');
      const { token } = await server().tokenFor('READONLY');
      const cursor = (await get(token, '/api/contacts?limit=50&offset=15000')).json().nextCursor;
      // The statements the route sends, as they are logged by the planner.
      const plan = async (sql: string, params: unknown[]) =>
        (await server().database.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params)).rows
          .map((row) => row['QUERY PLAN'])
          .join('\n');
      // The statement the route sends for q, planned generically (as a named statement is after
      // five runs) and with its value: both read the three lower() indexes.
      const searchSql = `SELECT id FROM ${prefixSource('contacts', ['first_name', 'last_name', 'email'], '$1')}
        ORDER BY created_at, id LIMIT 51`;
      const generic = await server().database.transaction(async (transaction) => {
        await transaction.query('SET LOCAL plan_cache_mode = force_generic_plan');
        return (
          await transaction.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${searchSql}`, ['First1234'])
        ).rows
          .map((row) => row['QUERY PLAN'])
          .join('\n');
      });
      expect(generic).not.toContain('Seq Scan');
      expect(generic).not.toContain('contacts_created_at_id');
      const search = await plan(searchSql, ['First1234']);
      expect(search).toContain('contacts_lower_first_name');
      expect(search).toContain('contacts_lower_last_name');
      expect(search).toContain('contacts_lower_email');
      expect(search).not.toContain('Seq Scan');
      expect(search).not.toContain('contacts_created_at_id');
      const position = JSON.parse(Buffer.from(cursor, 'base64url').toString());
      const page = await plan(
        'SELECT id FROM contacts WHERE (created_at, id) > ($1::timestamptz, $2) ORDER BY created_at, id LIMIT 51',
        [position[2], position[3]],
      );
      expect(page).toContain('contacts_created_at_id');
      expect(page).not.toContain('Seq Scan');
      const email = await plan('SELECT id FROM contacts WHERE lower(email) = lower($1)', ['a@b']);
      expect(email).toContain('contacts_lower_email');
    },
  );
});

describe('filters of /api/deals', () => {
  it('filters by stage, repeatable, and walks by cursor; refuses contact filters', async () => {
    const { token: agent } = await server().tokenFor('AGENT');
    const contact = (
      await send(agent, 'POST', '/api/contacts', { firstName: 'A', lastName: 'B' })
    ).json();
    const made: string[] = [];
    for (const stage of ['OPEN', 'WON', 'LOST', 'WON']) {
      server().clock.advance(1000);
      const deal = { contactId: contact.id, title: stage, stage, amountCents: 1, currency: 'EUR' };
      made.push((await send(agent, 'POST', '/api/deals', deal)).json().id);
    }
    const { token } = await server().tokenFor('READONLY');
    const walkDeals = async (url: string) => {
      const seen: string[] = [];
      let next: string | null = null;
      do {
        const response = await get(token, next === null ? url : `${url}&cursor=${next}`);
        expect(response.statusCode).toBe(200);
        seen.push(...response.json().deals.map((deal: { id: string }) => deal.id));
        next = response.json().nextCursor;
      } while (next !== null);
      return seen;
    };
    expect(await walkDeals('/api/deals?stage=WON&stage=LOST&limit=1')).toEqual([
      made[1],
      made[2],
      made[3],
    ]);
    expect(await walkDeals('/api/deals?limit=3&sort=-createdAt')).toEqual([...made].reverse());
    expectInvalid(await get(token, '/api/deals?lifecycle=LEAD'), 'lifecycle');
    expectInvalid(await get(token, '/api/deals?email=a@example.com'), 'email');
  });

  /** Deals of one contact with these titles and stages, one second apart; their ids in order. */
  async function seedDeals(deals: [title: string, stage: string][]): Promise<string[]> {
    const { token: agent } = await server().tokenFor('AGENT');
    const contact = (
      await send(agent, 'POST', '/api/contacts', { firstName: 'A', lastName: 'B' })
    ).json();
    const made: string[] = [];
    for (const [title, stage] of deals) {
      server().clock.advance(1000);
      const deal = { contactId: contact.id, title, stage, amountCents: 1, currency: 'EUR' };
      made.push((await send(agent, 'POST', '/api/deals', deal)).json().id);
    }
    return made;
  }

  it('searches a case-insensitive prefix of the title, with stage, cursor and count', async () => {
    const made = await seedDeals([
      ['Annual plan', 'OPEN'],
      ['annex renewal', 'WON'],
      ['Clinic ANNEX', 'WON'],
      ['100% upgrade', 'LOST'],
      ['Ännual Ünit', 'OPEN'],
      ['a_b', 'OPEN'],
    ]);
    const { token } = await server().tokenFor('READONLY');
    const dealIds = (body: { deals: { id: string }[] }) => body.deals.map((deal) => deal.id);
    const search = async (query: string) => {
      const response = await get(token, `/api/deals?${query}`);
      expect(response.statusCode, response.body).toBe(200);
      return dealIds(response.json());
    };
    const count = async (query: string) => {
      const response = await get(token, `/api/deals/count?${query}`);
      expect(response.statusCode, response.body).toBe(200);
      return response.json().count;
    };
    expect(await search('q=ANN')).toEqual([made[0], made[1]]);
    expect(await search('q=annual%20p')).toEqual([made[0]]);
    // A prefix of the title, not a word inside it.
    expect(await search('q=plan')).toEqual([]);
    expect(await search('q=clinic')).toEqual([made[2]]);
    // LIKE's wildcards are plain characters here.
    expect(await search('q=100%25')).toEqual([made[3]]);
    expect(await search('q=%25')).toEqual([]);
    expect(await search('q=a_')).toEqual([made[5]]);
    expect(await search('q=a%25')).toEqual([]);
    // Combined with stage, and walked by cursor newest first.
    expect(await search('q=ann&stage=WON')).toEqual([made[1]]);
    const pages: string[][] = [];
    let next: string | null = null;
    do {
      const cursor: string = next === null ? '' : `&cursor=${encodeURIComponent(next)}`;
      const response = await get(token, `/api/deals?q=a&limit=1&sort=-createdAt${cursor}`);
      expect(response.statusCode, response.body).toBe(200);
      pages.push(dealIds(response.json()));
      next = response.json().nextCursor;
    } while (next !== null);
    expect(pages).toEqual([[made[5]], [made[1]], [made[0]]]);
    // The count is that of every page of the same filters.
    expect(await count('q=a')).toBe(3);
    expect(await count('q=ann&stage=WON&stage=OPEN')).toBe(2);
    expect(await count('q=zzz')).toBe(0);
    expect(await count('')).toBe(6);
  });

  it('refuses a cursor made for another q, or for none', async () => {
    await seedDeals([
      ['Alpha', 'OPEN'],
      ['Alpine', 'OPEN'],
      ['Beta', 'OPEN'],
    ]);
    const { token } = await server().tokenFor('READONLY');
    const first = (await get(token, '/api/deals?q=al&limit=1')).json();
    expect(first.nextCursor).toEqual(expect.any(String));
    const cursor = encodeURIComponent(first.nextCursor);
    expectInvalid(await get(token, `/api/deals?q=alp&limit=1&cursor=${cursor}`), 'cursor');
    expectInvalid(await get(token, `/api/deals?limit=1&cursor=${cursor}`), 'cursor');
    const unfiltered = encodeURIComponent(
      (await get(token, '/api/deals?limit=1')).json().nextCursor,
    );
    expectInvalid(await get(token, `/api/deals?q=al&limit=1&cursor=${unfiltered}`), 'cursor');
    expect((await get(token, `/api/deals?q=al&limit=1&cursor=${cursor}`)).statusCode).toBe(200);
  });

  it.each([
    ['q=', 'q'],
    [`q=${'x'.repeat(101)}`, 'q'],
    ['q=%00', 'q'],
    ['q=a&q=b', 'q'],
  ])('answers 400 validation_failed for %s, on the list and on its count', async (query, path) => {
    const { token } = await server().tokenFor('READONLY');
    expectInvalid(await get(token, `/api/deals?${query}`), path);
    expectInvalid(await get(token, `/api/deals/count?${query}`), path);
  });

  it('takes a q of 1 to 100 characters of any text, list and count, never a 500', async () => {
    const { token } = await server().tokenFor('READONLY');
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', minLength: 0, maxLength: 120 }), async (q) => {
        const valid = q.length >= 1 && q.length <= 100 && !q.includes('\u0000') && q.isWellFormed();
        for (const path of ['/api/deals', '/api/deals/count']) {
          const response = await get(token, `${path}?q=${encodeURIComponent(q)}`);
          expect(response.statusCode, response.body).toBe(valid ? 200 : 400);
          if (!valid) expectInvalid(response, 'q');
        }
      }),
      { numRuns: 60 },
    );
  });

  it('counts with the filters of the list, refusing a parameter the count does not take', async () => {
    await seedDeals([
      ['Alpha', 'OPEN'],
      ['Beta', 'WON'],
    ]);
    const { token } = await server().tokenFor('READONLY');
    expect((await get(token, '/api/deals/count?stage=WON')).json()).toEqual({ count: 1 });
    expectInvalid(await get(token, '/api/deals/count?limit=5'), 'limit');
    expectInvalid(await get(token, '/api/deals/count?cursor=abc'), 'cursor');
    expectInvalid(await get(token, '/api/deals/count?stage=won'), 'stage');
  });

  // The index serves q: on a table large enough for the planner to care, no sequential scan.
  it.runIf(testDriver === 'postgres')(
    'serves q from the lower(title) index (EXPLAIN)',
    async () => {
      await server().database.query(
        `INSERT INTO contacts (id, first_name, last_name, lifecycle, created_at, updated_at)
       VALUES ('con_1', 'A', 'B', 'LEAD', now(), now())`,
      );
      await server().database.query(
        `INSERT INTO deals (id, contact_id, title, stage, amount_cents, currency, created_at, updated_at)
       SELECT 'deal_' || lpad(n::text, 26, '0'), 'con_1', 'Deal ' || n, 'OPEN', n, 'USD',
              timestamptz '2026-01-01T00:00:00Z', timestamptz '2026-01-01T00:00:00Z'
         FROM generate_series(1, 20000) AS n`,
      );
      await server().database.query('ANALYZE deals');
      const searchSql = `SELECT id FROM ${prefixSource('deals', ['title'], '$1')}
      ORDER BY created_at, id LIMIT 51`;
      const explain = async (generic: boolean) =>
        server().database.transaction(async (transaction) => {
          if (generic) await transaction.query('SET LOCAL plan_cache_mode = force_generic_plan');
          return (
            await transaction.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${searchSql}`, ['Deal 1234'])
          ).rows
            .map((row) => row['QUERY PLAN'])
            .join('\n');
        });
      for (const plan of [await explain(false), await explain(true)]) {
        expect(plan).toContain('deals_lower_title');
        expect(plan).not.toContain('Seq Scan');
        expect(plan).not.toContain('deals_created_at_id');
      }
    },
  );
});

// Two writers at once exist only on PostgreSQL. A writer that took its change number (and its
// transaction id) first but commits last must not be overtaken: writers take no lock, so the
// second commits while the first is open, and a reader in between must not show it yet. Shown,
// it would be followed by a cursor past it, and the first change would be skipped for ever.
describe.runIf(testDriver === 'postgres')('sort=updatedAt while writes overlap', () => {
  it('never shows a change before one numbered earlier that has not committed', async () => {
    const { token: agent } = await server().tokenFor('AGENT');
    const early = [];
    for (const firstName of ['E1', 'E2']) {
      server().clock.advance(1000);
      early.push((await send(agent, 'POST', '/api/contacts', { firstName, lastName: 'X' })).json());
    }
    const { token } = await server().tokenFor('READONLY');
    await transactionsSettled(server().database);
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
         VALUES ('con_slow', 'S', 'X', 'LEAD', now(), now())`,
      );
      written();
      await mayCommit;
    });
    await hasWritten;
    server().clock.advance(1000);
    // Not held up by the slow writer: it commits while the slow one is still open.
    const fast = await send(agent, 'PATCH', `/api/contacts/${early[0].id}`, {
      firstName: 'Changed',
    });
    expect(fast.statusCode).toBe(200);
    const during = (await get(token, '/api/contacts?sort=updatedAt&limit=1')).json();
    expect(during.contacts).toEqual([early[1]]);
    expect(during.nextCursor).toBeNull();
    const all = (await get(token, '/api/contacts?sort=updatedAt&limit=10')).json();
    expect(all.contacts).toEqual([early[1]]);
    release();
    await slow;
    const after = await walk(token, '/api/contacts?sort=updatedAt&limit=1');
    expect(after.flat()).toEqual([early[1].id, 'con_slow', early[0].id]);
  });
});

describe('API reference', () => {
  it('documents the list parameters and nextCursor of contacts and deals', async () => {
    const document = (await server().app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const names = (path: string) =>
      document.paths[path].get.parameters.map((parameter: { name: string }) => parameter.name);
    const common = ['limit', 'offset', 'cursor', 'sort', 'updatedSince'];
    expect(names('/api/contacts')).toEqual([...common, 'lifecycle', 'email', 'q']);
    expect(names('/api/deals')).toEqual([...common, 'stage', 'q']);
    const countNames = (path: string) =>
      document.paths[path].get.parameters.map((parameter: { name: string }) => parameter.name);
    expect(countNames('/api/deals/count')).toEqual(['updatedSince', 'stage', 'q']);
    expect(countNames('/api/contacts/count')).toEqual(['updatedSince', 'lifecycle', 'email', 'q']);
    const q = document.paths['/api/deals'].get.parameters.find(
      (parameter: { name: string }) => parameter.name === 'q',
    );
    expect(q.description).toBe('A case-insensitive prefix of the title');
    expect(q.schema).toMatchObject({ minLength: 1, maxLength: 100 });
    for (const path of ['/api/contacts', '/api/deals']) {
      const body = document.paths[path].get.responses['200'].content['application/json'].schema;
      expect(body.properties.nextCursor).toMatchObject({ type: ['string', 'null'] });
    }
  });
});

describe('unknown parameters on every list', () => {
  it.each([
    ['/api/sequences?status=DRAFT', 'sequences.manage'],
    ['/api/campaigns?q=spring', 'campaigns.manage'],
    ['/api/users?email=a@example.com', 'users.manage'],
    ['/api/messages?cursor=abc', 'contacts.read'],
  ])('answers 400 validation_failed for %s, naming the parameter', async (url) => {
    const { token } = await server().tokenFor('ADMIN');
    const response = await get(token, url);
    expect(response.statusCode).toBe(400);
    const name = url.split('?')[1]?.split('=')[0];
    expect(response.json()).toMatchObject({
      code: 'validation_failed',
      errors: [{ path: name, message: `${name} is not a field of this request` }],
    });
    const plain = await get(token, `${url.split('?')[0]}?limit=5&offset=0`);
    expect(plain.statusCode).toBe(200);
  });
});

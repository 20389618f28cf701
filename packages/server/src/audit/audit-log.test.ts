import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { testDriver, transactionsSettled, useTestDatabase } from '../../test/support/database.js';
import { createIdGenerator } from '../ids.js';
import type { Queryable } from '../storage/database.js';
import type { AuditEntry } from '../stores/audit-store.js';
import {
  decodeAuditCursor,
  decodeRecentAuditCursor,
  encodeAuditCursor,
  encodeRecentAuditCursor,
} from './audit-cursors.js';
import { listAuditEntries, listAuditEntriesNewestFirst, recordAuditEntry } from './audit-log.js';

describe('audit log', () => {
  const database = useTestDatabase();
  const clock = manualClock();
  const dependencies = { clock, newId: createIdGenerator({ now: () => clock.now() }) };

  // Written on their own (not in a given transaction), the entries are waited for until every
  // older transaction has ended, so that a walk shows them (see transactionsSettled).
  async function write(count: number, queryable: Queryable = database()): Promise<AuditEntry[]> {
    const written: AuditEntry[] = [];
    for (let index = 0; index < count; index++) {
      clock.advance(1);
      written.push(
        await recordAuditEntry(
          queryable,
          {
            action: 'contact.deleted',
            actor: { type: 'service_account', id: 'sa_1' },
            target: { type: 'contact', id: `con_${index}` },
            metadata: { index },
          },
          dependencies,
        ),
      );
    }
    if (queryable === database()) await transactionsSettled(database());
    return written;
  }

  // Waits first for every transaction older than the last write (see transactionsSettled).
  async function walk(limit: number, from?: string): Promise<{ ids: string[]; pages: number }> {
    await transactionsSettled(database());
    const ids: string[] = [];
    let cursor = from;
    let pages = 0;
    do {
      const page = await listAuditEntries(
        database(),
        cursor === undefined ? { limit } : { limit, cursor },
      );
      pages++;
      ids.push(...page.entries.map((entry) => entry.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    return { ids, pages };
  }

  it('answers an empty log with no entries and a null cursor', async () => {
    expect(await listAuditEntries(database())).toEqual({ entries: [], nextCursor: null });
  });

  it('returns what was recorded, as recorded', async () => {
    const [entry] = await write(1);
    const page = await listAuditEntries(database());
    expect(page).toEqual({ entries: [entry], nextCursor: null });
    expect(entry).toMatchObject({
      id: expect.stringMatching(/^aud_/),
      occurredAt: '2026-03-01T09:00:00.001Z',
      actor: { type: 'service_account', id: 'sa_1' },
      metadata: { index: 0 },
    });
  });

  it('pages oldest first, with a null cursor on the last page and no empty page after it', async () => {
    const written = await write(7);
    const first = await listAuditEntries(database(), { limit: 3 });
    expect(first.entries.map((entry) => entry.id)).toEqual(
      written.slice(0, 3).map((entry) => entry.id),
    );
    expect(first.nextCursor).toEqual(expect.any(String));
    expect(await walk(3)).toEqual({ ids: written.map((entry) => entry.id), pages: 3 });
    expect(await walk(7)).toEqual({ ids: written.map((entry) => entry.id), pages: 1 });
  });

  it('defaults to 50 entries a page and allows 200', async () => {
    const written = await write(201);
    const page = await listAuditEntries(database());
    expect(page.entries).toHaveLength(50);
    const big = await listAuditEntries(database(), { limit: 200 });
    expect(big.entries).toHaveLength(200);
    const rest = await listAuditEntries(database(), { limit: 200, cursor: big.nextCursor ?? '' });
    expect(rest).toEqual({ entries: [written[200]], nextCursor: null });
  });

  it('returns every entry exactly once while entries are written during the walk', async () => {
    const before = await write(5);
    const first = await listAuditEntries(database(), { limit: 2 });
    const during = await write(4);
    const rest = await walk(2, first.nextCursor ?? undefined);
    expect([...first.entries.map((entry) => entry.id), ...rest.ids]).toEqual(
      [...before, ...during].map((entry) => entry.id),
    );
  });

  it('walks exactly once under any interleaving of writes and page reads', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({ write: fc.integer({ min: 1, max: 4 }) }),
            fc.record({ read: fc.integer({ min: 1, max: 4 }) }),
          ),
          { maxLength: 12 },
        ),
        async (steps) => {
          await database().query('TRUNCATE audit_entries');
          const written: string[] = [];
          const seen: string[] = [];
          let cursor: string | undefined;
          let finished = false;
          for (const step of steps) {
            if ('write' in step) {
              written.push(...(await write(step.write)).map((entry) => entry.id));
            } else if (!finished) {
              const page = await listAuditEntries(
                database(),
                cursor === undefined ? { limit: step.read } : { limit: step.read, cursor },
              );
              seen.push(...page.entries.map((entry) => entry.id));
              if (page.nextCursor === null) finished = true;
              else cursor = page.nextCursor;
            }
          }
          if (!finished) seen.push(...(await walk(3, cursor)).ids);
          if (finished) {
            // The walk ended early; what it saw is a prefix, and a new walk sees the rest.
            expect(written.slice(0, seen.length)).toEqual(seen);
          } else {
            expect(seen).toEqual(written);
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it('walks in the order of transaction ids as numbers, 99 before 100', async () => {
    // Both below every transaction that can still run (the migrations alone took more ids).
    for (const [id, xid] of [
      ['aud_late', '100'],
      ['aud_early', '99'],
    ]) {
      await database().query(
        `INSERT INTO audit_entries (id, occurred_at, action, actor_type, target_type, target_id, xid)
         VALUES ($1, now(), 'contact.deleted', 'system', 'contact', 'con_1', $2::xid8)`,
        [id, xid],
      );
    }
    expect((await walk(1)).ids).toEqual(['aud_early', 'aud_late']);
  });

  it('refuses a limit outside 1 to 200', async () => {
    for (const limit of [0, -1, 201, 1.5, Number.NaN]) {
      await expect(listAuditEntries(database(), { limit })).rejects.toMatchObject({
        code: 'invalid_limit',
      });
    }
  });

  it('refuses a cursor it did not make', async () => {
    const other = Buffer.from('other:v1:5').toString('base64url');
    const negative = Buffer.from('audit:v1:-5').toString('base64url');
    // 2^63, one past the largest sequence number: read as a number, PostgreSQL would refuse it.
    const pastBigint = Buffer.from('audit:v2:5:9223372036854775808').toString('base64url');
    const pastBigintV1 = Buffer.from('audit:v1:9223372036854775808').toString('base64url');
    const pastXid = Buffer.from('audit:v2:18446744073709551616:5').toString('base64url');
    for (const cursor of [
      '',
      'not a cursor',
      other,
      negative,
      pastBigint,
      pastBigintV1,
      pastXid,
      'YXVkaXQ6djE6',
      `${'A'.repeat(97)}`,
    ]) {
      await expect(listAuditEntries(database(), { cursor })).rejects.toMatchObject({
        code: 'invalid_cursor',
      });
    }
  });

  it('round-trips its opaque cursors', () => {
    for (const seq of ['0', '1', '42', '9223372036854775807']) {
      for (const xid of ['0', '1', '750', '18446744073709551615']) {
        const cursor = encodeAuditCursor({ xid, seq });
        expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(decodeAuditCursor(cursor)).toEqual({ xid, seq });
      }
    }
  });

  it('never throws on any cursor string, and reads back exactly the positions it makes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(() => decodeAuditCursor(text)).not.toThrow();
        const base64 = Buffer.from(text, 'utf8').toString('base64url');
        expect(() => decodeAuditCursor(base64)).not.toThrow();
      }),
    );
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 18446744073709551615n }),
        fc.bigInt({ min: 0n, max: 9223372036854775807n }),
        (xid, seq) => {
          const position = { xid: String(xid), seq: String(seq) };
          expect(decodeAuditCursor(encodeAuditCursor(position))).toEqual(position);
        },
      ),
    );
  });

  it('accepts a cursor exactly when PostgreSQL can read both of its numbers', () => {
    const number = fc.oneof(
      fc.bigInt({ min: 0n, max: 2n ** 64n + 10n }),
      fc.bigInt({ min: 0n, max: 10n ** 21n }),
    );
    fc.assert(
      fc.property(number, number, (xid, seq) => {
        const readable = xid < 2n ** 64n && seq < 2n ** 63n;
        const cursor = Buffer.from(`audit:v2:${xid}:${seq}`).toString('base64url');
        expect(decodeAuditCursor(cursor)).toEqual(
          readable ? { xid: String(xid), seq: String(seq) } : undefined,
        );
        const legacy = Buffer.from(`audit:v1:${seq}`).toString('base64url');
        expect(decodeAuditCursor(legacy)).toEqual(
          seq < 2n ** 63n ? { xid: '1', seq: String(seq) } : undefined,
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('reads a cursor made before transaction ids as an entry of transaction 1', () => {
    const legacy = Buffer.from('audit:v1:42').toString('base64url');
    expect(decodeAuditCursor(legacy)).toEqual({ xid: '1', seq: '42' });
    expect(decodeAuditCursor(Buffer.from('audit:v2:1:2:3').toString('base64url'))).toBeUndefined();
    expect(
      decodeAuditCursor(Buffer.from('audit:v2:18446744073709551616:1').toString('base64url')),
    ).toBeUndefined();
  });

  it('records nothing when the transaction it belongs to rolls back', async () => {
    await expect(
      database().transaction(async (transaction) => {
        await write(2, transaction);
        throw new Error('change failed');
      }),
    ).rejects.toThrow('change failed');
    expect(await listAuditEntries(database())).toEqual({ entries: [], nextCursor: null });
  });

  // Two writers at once exist only on PostgreSQL (PGlite is one connection). Writers take no
  // lock: the second commits a higher seq while the first is still open. A reader must not show
  // it yet: its cursor would pass it, and the first writer's entry would be skipped for ever.
  it.runIf(testDriver === 'postgres')(
    'never lets a cursor pass an entry that commits later',
    async () => {
      const [earlier] = await write(1);
      await transactionsSettled(database());
      let releaseFirst: () => void = () => {};
      const firstMayCommit = new Promise<void>((resolve) => {
        releaseFirst = resolve;
      });
      let firstWritten: () => void = () => {};
      const firstHasWritten = new Promise<void>((resolve) => {
        firstWritten = resolve;
      });
      const first = database().transaction(async (transaction) => {
        const [entry] = await write(1, transaction);
        firstWritten();
        await firstMayCommit;
        return entry;
      });
      await firstHasWritten;
      // Not held up by the first writer: it commits while the first is still open.
      const [second] = await database().transaction((transaction) => write(1, transaction));
      const during = await listAuditEntries(database(), { limit: 1 });
      expect(during).toEqual({ entries: [earlier], nextCursor: null });
      releaseFirst();
      const entry = await first;
      expect((await walk(1)).ids).toEqual([earlier?.id, entry?.id, second?.id]);
    },
  );
});

describe('audit log, newest first', () => {
  const database = useTestDatabase();

  it('walks newest first in cursor pages, filtered by action and by actor', async () => {
    const clock = manualClock();
    const newId = createIdGenerator({ now: () => clock.now() });
    const actors = [
      { type: 'operator' as const },
      { type: 'service_account' as const, id: 'sa_1' },
      { type: 'service_account' as const, id: 'sa_2' },
    ];
    for (let index = 0; index < 7; index++) {
      await recordAuditEntry(
        database(),
        {
          action: index % 2 === 0 ? 'token.issued' : 'token.revoked',
          actor: actors[index % 3] ?? { type: 'system' },
          target: { type: 'token', id: `tok_${index}` },
        },
        { clock, newId },
      );
    }
    const walked: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listAuditEntriesNewestFirst(database(), {
        limit: 3,
        ...(cursor ? { cursor } : {}),
      });
      walked.push(...page.entries.map((entry) => entry.target.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(walked).toEqual(['tok_6', 'tok_5', 'tok_4', 'tok_3', 'tok_2', 'tok_1', 'tok_0']);
    const revoked = await listAuditEntriesNewestFirst(database(), { action: 'token.revoked' });
    expect(revoked.entries.map((entry) => entry.target.id)).toEqual(['tok_5', 'tok_3', 'tok_1']);
    const byId = await listAuditEntriesNewestFirst(database(), { actor: 'sa_2' });
    expect(byId.entries.map((entry) => entry.target.id)).toEqual(['tok_5', 'tok_2']);
    const byType = await listAuditEntriesNewestFirst(database(), { actor: 'operator' });
    expect(byType.entries.map((entry) => entry.target.id)).toEqual(['tok_6', 'tok_3', 'tok_0']);
    // Any string is a page or invalid_cursor, never another failure.
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 120 }), async (cursor) => {
        try {
          await listAuditEntriesNewestFirst(database(), { cursor, limit: 1 });
        } catch (error) {
          expect((error as { code?: string }).code).toBe('invalid_cursor');
        }
      }),
      { numRuns: 100 },
    );
    const oldestCursor = (await listAuditEntries(database(), { limit: 1 })).nextCursor ?? '';
    for (const bad of ['nonsense!', oldestCursor, 'YXVkaXQ6djE6YmVmb3JlOng']) {
      await expect(listAuditEntriesNewestFirst(database(), { cursor: bad })).rejects.toMatchObject({
        code: 'invalid_cursor',
      });
    }
  });

  // A bigint holds up to 2^63 - 1: a cursor naming a number past it reached PostgreSQL, whose
  // statement failed (numeric_value_out_of_range), and the Audit log page answered 500.
  it('refuses a cursor whose number is past the 64-bit range as invalid_cursor', async () => {
    const clock = manualClock();
    await recordAuditEntry(
      database(),
      {
        action: 'token.issued',
        actor: { type: 'operator' },
        target: { type: 'token', id: 'tok_1' },
      },
      { clock, newId: createIdGenerator({ now: () => clock.now() }) },
    );
    const largest = encodeRecentAuditCursor('9223372036854775807');
    const page = await listAuditEntriesNewestFirst(database(), { cursor: largest });
    expect(page.entries.map((entry) => entry.target.id)).toEqual(['tok_1']);
    for (const seq of ['9223372036854775808', '9999999999999999999', '18446744073709551616']) {
      const cursor = Buffer.from(`audit:v1:before:${seq}`).toString('base64url');
      await expect(listAuditEntriesNewestFirst(database(), { cursor }), seq).rejects.toMatchObject({
        code: 'invalid_cursor',
      });
    }
  });

  it('never throws on any cursor string, and reads back exactly the numbers it makes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 120 }), (text) => {
        expect(() => decodeRecentAuditCursor(text)).not.toThrow();
        const base64 = Buffer.from(text, 'utf8').toString('base64url');
        expect(() => decodeRecentAuditCursor(base64)).not.toThrow();
      }),
    );
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 9223372036854775807n }), (seq) => {
        expect(decodeRecentAuditCursor(encodeRecentAuditCursor(String(seq)))).toBe(String(seq));
      }),
    );
    // Past the range, up to 20 digits: each is refused, none reaches the database.
    fc.assert(
      fc.property(fc.bigInt({ min: 9223372036854775808n, max: 10n ** 20n - 1n }), (seq) => {
        const cursor = Buffer.from(`audit:v1:before:${seq}`).toString('base64url');
        expect(decodeRecentAuditCursor(cursor)).toBeUndefined();
      }),
    );
  });
});

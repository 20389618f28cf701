import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cursorTimestamp,
  decodeListCursor,
  encodeListCursor,
  listFingerprint,
  positionOf,
} from './list-cursor.js';
import { parseIsoTimestamp } from './routes/keyset-list.js';

describe('list cursors', () => {
  const fingerprint = listFingerprint(['createdAt', 50, null]);

  it('round-trips both kinds of position', () => {
    const at = {
      kind: 'createdAt',
      createdAt: '2026-01-01T00:00:00.123456Z',
      id: 'con_1',
    } as const;
    const decodedAt = decodeListCursor(encodeListCursor(fingerprint, at));
    expect(decodedAt?.fingerprint).toBe(fingerprint);
    expect(positionOf('createdAt', decodedAt?.values ?? [])).toEqual(at);
    const change = {
      kind: 'change',
      xid: '18446744073709551615',
      seq: '9223372036854775807',
    } as const;
    const decodedChange = decodeListCursor(encodeListCursor(fingerprint, change));
    expect(positionOf('change', decodedChange?.values ?? [])).toEqual(change);
    // A position of one kind is not one of the other.
    expect(positionOf('change', decodedAt?.values ?? [])).toBeUndefined();
    expect(positionOf('createdAt', decodedChange?.values ?? [])).toBeUndefined();
  });

  it('reads a change cursor made before transaction ids as a change of transaction 1', () => {
    // What this server wrote before migration 25: the change number alone.
    const legacy = Buffer.from(JSON.stringify(['l1', fingerprint, '42'])).toString('base64url');
    expect(positionOf('change', decodeListCursor(legacy)?.values ?? [])).toEqual({
      kind: 'change',
      xid: '1',
      seq: '42',
    });
  });

  it('gives a different fingerprint to every different query', () => {
    expect(listFingerprint(['createdAt', 50, null])).not.toBe(
      listFingerprint(['createdAt', 51, null]),
    );
    expect(listFingerprint(['createdAt', 50, ['A']])).not.toBe(
      listFingerprint(['createdAt', 50, ['B']]),
    );
  });

  it('gives a query the same fingerprint every time, however many other queries came between', () => {
    // Cursors handed out before a restart (or before the remembered fingerprints were cleared)
    // must still match: the fingerprint is the digest of the query, never a remembered value.
    const digest = (canonical: unknown[]) =>
      createHash('sha256').update(JSON.stringify(canonical)).digest('base64url').slice(0, 22);
    const first = listFingerprint(['createdAt', 50, null]);
    expect(first).toBe(digest(['createdAt', 50, null]));
    for (let limit = 1; limit <= 600; limit++) {
      expect(listFingerprint(['createdAt', limit, ['LEAD']])).toBe(
        digest(['createdAt', limit, ['LEAD']]),
      );
    }
    expect(listFingerprint(['createdAt', 50, null])).toBe(first);
  });

  it.each([
    ['a seq beyond bigint', ['9223372036854775808']],
    ['a seq with a sign', ['-1']],
    ['a transaction id beyond xid8', ['1', '18446744073709551616']],
    ['a transaction id with a sign', ['1', '-1']],
    ['year 0000', ['0000-01-01T00:00:00.000000Z', 'con_1']],
    ['a day that does not exist', ['2026-02-30T00:00:00.000000Z', 'con_1']],
    ['hour 24', ['2026-01-01T24:00:00.000000Z', 'con_1']],
    ['an id with NUL', ['2026-01-01T00:00:00.000000Z', 'con\u0000']],
    ['an id with a space', ['2026-01-01T00:00:00.000000Z', 'con 1']],
    ['too few values', ['2026-01-01T00:00:00.000000Z']],
  ])('refuses %s', (_, values) => {
    const kind = !values[0]?.includes('T') ? 'change' : 'createdAt';
    expect(positionOf(kind, values)).toBeUndefined();
  });

  it('accepts a change position exactly when PostgreSQL can read both of its numbers', () => {
    // Past 2^63 - 1 (bigint) or 2^64 - 1 (xid8) the statement would fail: a 500, not a 400.
    const number = fc.oneof(
      fc.bigInt({ min: 0n, max: 2n ** 64n + 10n }),
      fc.bigInt({ min: 0n, max: 10n ** 21n }),
    );
    fc.assert(
      fc.property(number, number, (seq, xid) => {
        const values = [String(seq), String(xid)];
        const readable = seq < 2n ** 63n && xid < 2n ** 64n;
        const cursor = Buffer.from(JSON.stringify(['l1', fingerprint, ...values])).toString(
          'base64url',
        );
        const position = positionOf('change', decodeListCursor(cursor)?.values ?? []);
        expect(position).toEqual(
          readable ? { kind: 'change', seq: values[0], xid: values[1] } : undefined,
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws on any string, and reads back only what it made', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        const decoded = decodeListCursor(text);
        if (decoded !== undefined) {
          expect(() => positionOf('change', decoded.values)).not.toThrow();
          expect(() => positionOf('createdAt', decoded.values)).not.toThrow();
        }
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ unit: 'binary' }), fc.integer(), fc.constant(null)), {
          maxLength: 5,
        }),
        (values) => {
          const cursor = Buffer.from(JSON.stringify(values)).toString('base64url');
          const decoded = decodeListCursor(cursor);
          if (decoded === undefined) return;
          for (const kind of ['change', 'createdAt'] as const) {
            const position = positionOf(kind, decoded.values);
            if (position === undefined) continue;
            // Whatever it accepts is something the database can read.
            if (position.kind === 'change') expect(BigInt(position.seq) >= 0n).toBe(true);
            else expect(Number.isNaN(Date.parse(position.createdAt))).toBe(false);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('updatedSince timestamps', () => {
  it.each([
    ['2026-03-01T09:00:00Z', '2026-03-01T09:00:00.000Z'],
    ['2026-03-01T09:00Z', '2026-03-01T09:00:00.000Z'],
    ['2026-03-01T09:00:00.5Z', '2026-03-01T09:00:00.500Z'],
    ['2026-03-01T10:00:00+01:00', '2026-03-01T09:00:00.000Z'],
    ['2026-03-01T09:00:00.123456789Z', '2026-03-01T09:00:00.123Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
  ])('reads %s', (value, iso) => {
    expect(parseIsoTimestamp(value)).toBe(iso);
  });

  it.each([
    '2026-03-01',
    '2026-03-01T09:00:00',
    '2026-13-01T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '2026-03-01T09:60:00Z',
    '2026-03-01T09:00:00+24:00',
    '0000-01-01T00:00:00Z',
    '0001-01-01T00:30:00+01:00',
    '+02026-03-01T09:00:00Z',
    ' 2026-03-01T09:00:00Z',
  ])('refuses %s', (value) => {
    expect(parseIsoTimestamp(value)).toBeUndefined();
  });

  it('reads every instant from its own ISO string, and never throws', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('0001-01-01T00:00:00Z'),
          max: new Date('9999-12-31T23:59:59Z'),
          noInvalidDate: true,
        }),
        (date) => {
          expect(parseIsoTimestamp(date.toISOString())).toBe(date.toISOString());
        },
      ),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        const iso = parseIsoTimestamp(text);
        if (iso !== undefined) expect(iso).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      }),
    );
  });
});

describe('cursorTimestamp', () => {
  it('writes every timestamptz text of years 1 to 9999 as a position the cursor accepts, the same instant', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('0001-01-01T00:00:00Z'),
          max: new Date('9999-12-31T23:59:59.999Z'),
          noInvalidDate: true,
        }),
        fc.integer({ min: 0, max: 999 }),
        (date, micros) => {
          const iso = date.toISOString();
          // PostgreSQL's text form: no fraction when it is zero, trailing zeros dropped.
          const fraction = `${iso.slice(20, 23)}${String(micros).padStart(3, '0')}`.replace(
            /0+$/,
            '',
          );
          const text = `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ''}+00`;
          const written = cursorTimestamp(text);
          expect(written).toBe(
            `${iso.slice(0, 19)}.${iso.slice(20, 23)}${String(micros).padStart(3, '0')}Z`,
          );
          expect(positionOf('createdAt', [written, 'con_1'])).toEqual({
            kind: 'createdAt',
            createdAt: written,
            id: 'con_1',
          });
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('leaves any other text as it is, which no cursor accepts', () => {
    for (const text of ['10000-01-01 00:00:00+00', '2026-01-01 00:00:00+00 BC', 'infinity', '']) {
      expect(cursorTimestamp(text)).toBe(text);
      expect(positionOf('createdAt', [text, 'con_1'])).toBeUndefined();
    }
  });
});

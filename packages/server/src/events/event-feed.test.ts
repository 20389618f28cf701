import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEventCursor, encodeEventCursor } from './event-feed.js';

describe('the event feed cursor', () => {
  it('never throws on any string, and reads back exactly the positions it makes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(() => decodeEventCursor(text)).not.toThrow();
        expect(() => decodeEventCursor(Buffer.from(text).toString('base64url'))).not.toThrow();
      }),
    );
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 18446744073709551615n }),
        fc.bigInt({ min: 0n, max: 9223372036854775807n }),
        (xid, seq) => {
          const cursor = encodeEventCursor(String(xid), String(seq));
          expect(decodeEventCursor(cursor)).toEqual({ xid: String(xid), seq: String(seq) });
        },
      ),
    );
  });

  it('accepts a position exactly when PostgreSQL can read both of its numbers', () => {
    const number = fc.oneof(
      fc.bigInt({ min: 0n, max: 2n ** 64n + 10n }),
      fc.bigInt({ min: 0n, max: 10n ** 21n }),
    );
    fc.assert(
      fc.property(number, number, (xid, seq) => {
        const readable = xid < 2n ** 64n && seq < 2n ** 63n;
        const cursor = Buffer.from(`events:v1:${xid}:${seq}`).toString('base64url');
        expect(decodeEventCursor(cursor)).toEqual(
          readable ? { xid: String(xid), seq: String(seq) } : undefined,
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses a position PostgreSQL could not read, or text it did not make', () => {
    for (const text of [
      'events:v1:5:9223372036854775808',
      'events:v1:18446744073709551616:5',
      'events:v1:5',
      'events:v1:5:6:7',
      'events:v1:-5:6',
      'audit:v2:5:6',
    ]) {
      expect(decodeEventCursor(Buffer.from(text).toString('base64url')), text).toBeUndefined();
    }
  });
});

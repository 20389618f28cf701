import type { PGlite } from '@electric-sql/pglite';
import fc from 'fast-check';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { exchange } from './pglite-exchange.js';
import { ResultCollector } from './pglite-result.js';

// Backend messages as PostgreSQL writes them: a type byte, an int32 length counting itself.
function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

const cstring = (text: string) => Buffer.from(`${text}\0`, 'utf8');
const int16 = (value: number) => Buffer.from([(value >> 8) & 0xff, value & 0xff]);
const int32 = (value: number) => {
  const buffer = Buffer.alloc(4);
  buffer.writeInt32BE(value);
  return buffer;
};

function rowDescription(columns: readonly { name: string; oid: number }[]): Buffer {
  return message(
    'T',
    Buffer.concat([
      int16(columns.length),
      ...columns.map(({ name, oid }) =>
        Buffer.concat([
          cstring(name),
          int32(0),
          int16(0),
          int32(oid),
          int16(-1),
          int32(-1),
          int16(0),
        ]),
      ),
    ]),
  );
}

function dataRow(values: readonly (string | null)[]): Buffer {
  return message(
    'D',
    Buffer.concat([
      int16(values.length),
      ...values.map((value) => {
        if (value === null) return int32(-1);
        const bytes = Buffer.from(value, 'utf8');
        return Buffer.concat([int32(bytes.length), bytes]);
      }),
    ]),
  );
}

/**
 * A PGlite whose raw stream hands `answer` over in chunks cut at `cuts`, each written into the
 * same piece of memory and handed over as a view of it, as the engine does with its send buffer.
 */
function chunkedPGlite(answer: Buffer, cuts: readonly number[]): PGlite {
  const memory = Buffer.alloc(answer.length);
  return {
    execProtocolRawStream: async (
      _batch: Uint8Array,
      { onRawData }: { onRawData: (chunk: Uint8Array) => void },
    ) => {
      const bounds = [0, ...[...new Set(cuts)].sort((a, b) => a - b), answer.length];
      for (let index = 1; index < bounds.length; index++) {
        const start = bounds[index - 1] as number;
        const end = bounds[index] as number;
        if (end <= start) continue;
        answer.copy(memory, 0, start, end);
        onRawData(memory.subarray(0, end - start));
        memory.fill(0xee);
      }
    },
  } as unknown as PGlite;
}

const text = fc
  .string({ unit: 'grapheme', maxLength: 30 })
  .filter((value) => !value.includes('\0'));

describe('exchange with PGlite through pg-protocol', () => {
  it('reads the same rows, row count and errors however the answer is cut into chunks', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.option(text, { nil: null }), fc.integer()), { maxLength: 20 }),
        fc.option(text, { nil: undefined }),
        fc.array(fc.nat(), { maxLength: 12 }),
        async (rows, errorMessage, cutSeeds) => {
          const parts = [
            message('1', Buffer.alloc(0)),
            rowDescription([
              { name: 'label', oid: pg.types.builtins.TEXT },
              { name: 'n', oid: pg.types.builtins.INT4 },
            ]),
            message('2', Buffer.alloc(0)),
            ...rows.map(([label, n]) => dataRow([label, String(n)])),
            message('C', cstring(`SELECT ${rows.length}`)),
          ];
          if (errorMessage !== undefined) {
            parts.push(
              message(
                'E',
                Buffer.concat([
                  cstring('SERROR'),
                  cstring('C23505'),
                  cstring(`M${errorMessage}`),
                  cstring('tcontacts'),
                  Buffer.from([0]),
                ]),
              ),
            );
          }
          parts.push(message('Z', Buffer.from('I')));
          const answer = Buffer.concat(parts);
          const cuts = cutSeeds.map((seed) => seed % (answer.length + 1));
          const collector = new ResultCollector(undefined);
          await exchange(chunkedPGlite(answer, cuts), Buffer.alloc(0), collector);
          expect(collector.parsed).toBe(true);
          expect(collector.rows).toEqual(rows.map(([label, n]) => ({ label, n })));
          expect(collector.rowCount).toBe(rows.length);
          if (errorMessage === undefined) {
            expect(collector.failure).toBeUndefined();
          } else {
            // The class `pg` throws, with the fields `pg` gives it.
            expect(collector.failure).toBeInstanceOf(pg.DatabaseError);
            expect(collector.failure).toMatchObject({
              message: errorMessage,
              code: '23505',
              severity: 'ERROR',
              table: 'contacts',
            });
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

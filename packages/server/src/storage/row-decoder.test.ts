import fc from 'fast-check';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../test/support/database.js';
import { isoTimestamp } from './iso-timestamp.js';

// The contract of both drivers' rows: every column type the server stores comes back as `pg`'s
// own parser makes it from PostgreSQL's text, but timestamptz, which is that value's ISO string.
const reference = (typeOid: number) =>
  typeOid === pg.types.builtins.TIMESTAMPTZ
    ? isoTimestamp
    : (pg.types.getTypeParser(typeOid, 'text') as (text: string) => unknown);

/** Text without NUL (PostgreSQL text cannot hold it) and without lone surrogates. */
const text = fc
  .string({ unit: 'grapheme', maxLength: 40 })
  .filter((value) => !value.includes('\0'));
const json = fc.jsonValue({ maxDepth: 3 }).map((value) =>
  // PostgreSQL's jsonb refuses \u0000 in strings; JSON.stringify(-0) is 0 anyway.
  JSON.parse(JSON.stringify(value).replaceAll('\\u0000', '')),
);
const timestamp = fc.date({
  min: new Date('0001-01-01T00:00:00.000Z'),
  max: new Date('9999-12-31T23:59:59.999Z'),
  noInvalidDate: true,
});

const columnTypes = [
  { type: 'text', oid: pg.types.builtins.TEXT, values: text },
  { type: 'integer', oid: pg.types.builtins.INT4, values: fc.integer() },
  {
    type: 'bigint',
    oid: pg.types.builtins.INT8,
    values: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String),
  },
  { type: 'boolean', oid: pg.types.builtins.BOOL, values: fc.boolean() },
  { type: 'jsonb', oid: pg.types.builtins.JSONB, values: json },
  {
    type: 'bytea',
    oid: pg.types.builtins.BYTEA,
    values: fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes)),
  },
  { type: 'timestamptz', oid: pg.types.builtins.TIMESTAMPTZ, values: timestamp },
  { type: 'text[]', oid: 1009, values: fc.array(text, { maxLength: 5 }) },
] as const;

describe('rows on both drivers', () => {
  const database = useTestDatabase();

  for (const { type, oid, values } of columnTypes) {
    it(`decode ${type} as pg's parser does${type === 'timestamptz' ? ' (an ISO string)' : ''}`, async () => {
      const parse = reference(oid);
      await fc.assert(
        fc.asyncProperty(
          fc.option(values as fc.Arbitrary<unknown>, { nil: null }),
          async (value) => {
            const parameter = type === 'jsonb' && value !== null ? JSON.stringify(value) : value;
            const { rows } = await database().query<{ value: unknown; text: string | null }>(
              `SELECT $1::${type} AS value, ($1::${type})::text AS text`,
              [parameter],
            );
            const row = rows[0];
            expect(row?.value).toEqual(row?.text === null ? null : parse(row?.text as string));
            if (type === 'timestamptz' && value !== null) {
              expect(row?.value).toBe((value as Date).toISOString());
            }
          },
        ),
        { numRuns: 60 },
      );
    });
  }

  it('keep the last result of several statements in one string, and count touched rows', async () => {
    const result = await database().query(
      'CREATE TEMPORARY TABLE decoder_t (n integer); INSERT INTO decoder_t VALUES (1), (2); SELECT n FROM decoder_t ORDER BY n',
    );
    expect(result.rows).toEqual([{ n: 1 }, { n: 2 }]);
    expect((await database().query('UPDATE decoder_t SET n = n + $1', [1])).rowCount).toBe(2);
    await database().query('DROP TABLE decoder_t');
  });

  it('throw PostgreSQL errors with their SQLSTATE and names, and keep working after one', async () => {
    await database().query(
      "INSERT INTO service_accounts (id, name, role, created_at) VALUES ('sa_1', 'a', 'ADMIN', now())",
    );
    const error = await database()
      .query(
        'INSERT INTO service_accounts (id, name, role, created_at) VALUES ($1, $2, $3, now())',
        ['sa_1', 'b', 'ADMIN'],
      )
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(pg.DatabaseError);
    expect(error).toMatchObject({ code: '23505', severity: 'ERROR', table: 'service_accounts' });
    expect((await database().query('SELECT $1::integer AS n', [7])).rows).toEqual([{ n: 7 }]);
  });

  it('prepare each text once and keep answering as tables change under it', async () => {
    await database().query('CREATE TABLE decoder_shape (a integer)');
    await database().query('INSERT INTO decoder_shape VALUES (1)');
    const sql = 'SELECT * FROM decoder_shape WHERE a >= $1';
    expect((await database().query(sql, [0])).rows).toEqual([{ a: 1 }]);
    await database().query('ALTER TABLE decoder_shape ADD COLUMN b text');
    expect((await database().query(sql, [0])).rows).toEqual([{ a: 1, b: null }]);
    await database().query('DROP TABLE decoder_shape');
  });

  it('run far more distinct statements than are kept prepared', async () => {
    for (let index = 0; index < 520; index++) {
      const { rows } = await database().query(`SELECT $1::integer + ${index} AS n`, [1]);
      expect(rows).toEqual([{ n: index + 1 }]);
    }
  });
});

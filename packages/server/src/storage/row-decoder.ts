import pg from 'pg';
import { isoTimestamp } from './iso-timestamp.js';
import type { ColumnDescription } from './wire-protocol.js';

/** @internal Turns the text of one column's value into its JavaScript value. */
export type TextParser = (text: string) => unknown;

const { builtins } = pg.types;
const identity: TextParser = (text) => text;
const integer: TextParser = (text) => Number.parseInt(text, 10);

/**
 * @internal The parser of a type's text form. Every type gives what `pg` gives (its own parser
 * is the fallback: `bigint` a decimal string, `jsonb` parsed, `bytea` a `Buffer`, arrays…), but
 * for `timestamptz`, which stays an ISO 8601 UTC string (see {@link isoTimestamp}): no `Date` is
 * made between the database and the response. The common types skip `pg`'s dispatch.
 */
export function textParser(typeOid: number): TextParser {
  switch (typeOid) {
    case builtins.TEXT:
    case builtins.VARCHAR:
    case builtins.BPCHAR:
    case 19: // name
    case builtins.CHAR:
    case 705: // unknown: a bare string literal
      return identity;
    case builtins.INT4:
    case builtins.INT2:
    case builtins.OID:
      return integer;
    case builtins.TIMESTAMPTZ:
      return isoTimestamp;
    case builtins.JSON:
    case builtins.JSONB:
      return JSON.parse;
    default:
      return pg.types.getTypeParser(typeOid, 'text') as TextParser;
  }
}

/** @internal Makes row objects from the fields of a `DataRow`, for one row description. */
export type RowDecoder = (
  data: Buffer,
  offsets: Int32Array,
  count: number,
) => Record<string, unknown>;

/**
 * @internal The row decoder of a row description: one object per row, keyed by column name
 * (a later column of the same name wins, as in `pg`), NULL as `null`.
 */
export function rowDecoder(columns: readonly ColumnDescription[]): RowDecoder {
  const names = columns.map((column) => column.name);
  const parsers = columns.map((column) => textParser(column.typeOid));
  const width = columns.length;
  return (data, offsets, count) => {
    const row: Record<string, unknown> = {};
    const fields = Math.min(count, width);
    for (let index = 0; index < fields; index++) {
      const start = offsets[2 * index] as number;
      row[names[index] as string] =
        start === -1
          ? null
          : (parsers[index] as TextParser)(data.toString('utf8', start, offsets[2 * index + 1]));
    }
    return row;
  };
}

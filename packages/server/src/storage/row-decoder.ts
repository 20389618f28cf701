import pg from 'pg';
import { isoTimestamp } from './iso-timestamp.js';

/** @internal A column of a row description: its name and the type oid of its values. */
export interface ColumnDescription {
  /** The column's name as the statement labels it. */
  readonly name: string;
  /** The PostgreSQL type oid of its values (`dataTypeID`, as `pg-protocol` calls it). */
  readonly dataTypeID: number;
}

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

/**
 * @internal Makes a row object from the fields of a `DataRow` as `pg-protocol` reads them (the
 * text of each value, `null` for NULL), for one row description.
 */
export type RowDecoder = (fields: readonly (string | null)[]) => Record<string, unknown>;

/**
 * @internal The row decoder of a row description: one object per row, keyed by column name
 * (a later column of the same name wins, as in `pg`), NULL as `null`.
 */
export function rowDecoder(columns: readonly ColumnDescription[]): RowDecoder {
  const names = columns.map((column) => column.name);
  const parsers = columns.map((column) => textParser(column.dataTypeID));
  const width = columns.length;
  return (fields) => {
    const row: Record<string, unknown> = {};
    const count = Math.min(fields.length, width);
    for (let index = 0; index < count; index++) {
      const text = fields[index] as string | null;
      row[names[index] as string] = text === null ? null : (parsers[index] as TextParser)(text);
    }
    return row;
  };
}

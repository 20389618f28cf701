// The largest values, in the decimal text a cursor carries them in. Texts of the same length
// compare as their numbers do, so no BigInt is made for a cursor read on every page request.
const BIGINT_MAX = '9223372036854775807';
const XID8_MAX = '18446744073709551615';

const decimal = /^(0|[1-9][0-9]*)$/;

function withinMax(text: string, max: string): boolean {
  if (text.length > max.length || !decimal.test(text)) return false;
  return text.length < max.length || text <= max;
}

/**
 * @internal Whether `text` is a number a PostgreSQL `bigint` holds, as this server writes one
 * into a cursor: decimal digits from 0 to 2^63 − 1, no sign, no leading zero, nothing around
 * them. A cursor is checked with it before its number reaches a statement: a number past the
 * range fails the statement (`numeric_value_out_of_range`), which would be a 500 where a forged
 * cursor is a 400.
 */
export function isBigintText(text: string): boolean {
  return withinMax(text, BIGINT_MAX);
}

/**
 * @internal Whether `text` is a transaction id a PostgreSQL `xid8` holds: decimal digits from 0
 * to 2^64 − 1, written as {@link isBigintText} says.
 */
export function isXid8Text(text: string): boolean {
  return withinMax(text, XID8_MAX);
}

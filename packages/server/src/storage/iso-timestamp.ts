import pg from 'pg';

const parseTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (
  text: string,
) => unknown;

/**
 * @internal A `timestamptz` as PostgreSQL writes it in text (`2026-01-02 03:04:05.678912+00`)
 * turned into the ISO 8601 UTC string the API answers (`2026-01-02T03:04:05.678Z`): exactly what
 * `Date#toISOString()` gives for the value `pg` parses, milliseconds truncated as a `Date`
 * truncates them, without making a `Date`. The servers' sessions run in UTC, so the fast path
 * is the `+00` form; any other offset, era or year goes through `pg`'s parser and a `Date`.
 * `infinity` and `-infinity` come back as they are.
 */
export function isoTimestamp(text: string): string {
  const length = text.length;
  if (
    length >= 22 &&
    text.charCodeAt(4) === 45 &&
    text.charCodeAt(10) === 32 &&
    text.charCodeAt(length - 3) === 43 &&
    text.charCodeAt(length - 2) === 48 &&
    text.charCodeAt(length - 1) === 48
  ) {
    const seconds = `${text.slice(0, 10)}T${text.slice(11, 19)}`;
    if (length === 22) return `${seconds}.000Z`;
    if (text.charCodeAt(19) === 46)
      return `${seconds}.${`${text.slice(20, length - 3)}00`.slice(0, 3)}Z`;
  }
  const parsed = parseTimestamptz(text);
  return parsed instanceof Date && !Number.isNaN(parsed.getTime()) ? parsed.toISOString() : text;
}

import fc from 'fast-check';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isoTimestamp } from './iso-timestamp.js';

const parseWithPg = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (
  text: string,
) => Date;

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** A timestamptz as PostgreSQL writes it in text, in UTC or at some offset. */
const postgresText = fc
  .record({
    year: fc.integer({ min: 1, max: 9999 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 28 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.integer({ min: 0, max: 59 }),
    // PostgreSQL drops trailing zeros of the microseconds, and the point when none are left.
    micros: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 999_999 })),
    offset: fc.oneof(
      fc.constant('+00'),
      fc.constantFrom('+05:30', '-08', '+14', '-00:25:21', '+01'),
    ),
  })
  .map(({ year, month, day, hour, minute, second, micros, offset }) => {
    const fraction = micros === 0 ? '' : `.${pad(micros, 6)}`.replace(/0+$/, '');
    return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)} ${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}${fraction}${offset}`;
  });

describe('isoTimestamp', () => {
  it('gives exactly what pg’s Date gives through toISOString, for any text PostgreSQL writes', () => {
    fc.assert(
      fc.property(postgresText, (text) => {
        expect(isoTimestamp(text)).toBe(parseWithPg(text).toISOString());
      }),
      { numRuns: 5_000 },
    );
  });

  it('reads years beyond 9999 and dates before the common era through a Date', () => {
    for (const text of ['10000-01-01 00:00:00+00', '0044-03-15 12:00:00+00 BC']) {
      expect(isoTimestamp(text)).toBe(parseWithPg(text).toISOString());
    }
  });

  it('keeps infinity as it is', () => {
    expect(isoTimestamp('infinity')).toBe('infinity');
    expect(isoTimestamp('-infinity')).toBe('-infinity');
  });
});

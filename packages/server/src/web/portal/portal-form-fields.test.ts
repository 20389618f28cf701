import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodePortalCursor,
  encodePortalCursor,
  headerLines,
  parseHeaderLines,
  parseRateLimit,
  utcInstant,
} from './portal-form-fields.js';

const instant = fc
  .integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) })
  .map((ms) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '+00'));
const id = fc.stringMatching(/^[a-z]{2,4}_[0-9A-Z]{26}$/);

describe("the portal's list cursor", () => {
  it('reads back every position it wrote', () => {
    fc.assert(
      fc.property(instant, id, (createdAt, rowId) => {
        expect(decodePortalCursor(encodePortalCursor({ createdAt, id: rowId }))).toEqual({
          createdAt,
          id: rowId,
        });
      }),
    );
  });

  it('reads any other text as no position, never throwing', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        const cursor = decodePortalCursor(text);
        if (cursor !== undefined) expect(encodePortalCursor(cursor)).toBe(text);
      }),
    );
    expect(decodePortalCursor(Buffer.from("x' OR 1=1|we_1").toString('base64url'))).toBe(undefined);
  });
});

// Header names and values as the form would get them: no colon, no line break in a name, no
// line break in a value, no space at either end (the reader trims).
const headerName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/);
const headerValue = fc.stringMatching(/^([!-~]([ -~]{0,30}[!-~])?)?$/);

describe("the endpoint form's static headers", () => {
  it('reads back the headers it shows, one Name: value a line', () => {
    fc.assert(
      fc.property(fc.dictionary(headerName, headerValue, { maxKeys: 10 }), (headers) => {
        expect(parseHeaderLines(headerLines(headers))).toEqual({ ok: true, headers });
      }),
    );
  });

  it('skips blank lines and CRLF, refuses a line without a name and a name given twice, by line number', () => {
    expect(parseHeaderLines('\r\nX-Team: crm\r\n\r\n')).toEqual({
      ok: true,
      headers: { 'X-Team': 'crm' },
    });
    expect(parseHeaderLines('X-Team: crm\nno colon here')).toEqual({
      ok: false,
      message: 'Line 2 is not a header: write Name: value.',
    });
    expect(parseHeaderLines('X-A: 1\nX-A: 2')).toEqual({
      ok: false,
      message: 'Line 2 gives X-A a second time.',
    });
  });

  it('never throws, whatever is typed', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 500 }), (text) => {
        const result = parseHeaderLines(text);
        if (result.ok) for (const name of Object.keys(result.headers)) expect(name).not.toBe('');
      }),
    );
  });
});

describe('the rate limit and replay time fields', () => {
  it('reads empty as no limit, digits as the number, anything else as NaN for the schema to refuse', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (text) => {
        const value = parseRateLimit(text);
        if (text === '') expect(value).toBe(null);
        else if (/^\d{1,7}$/.test(text)) expect(value).toBe(Number(text));
        else expect(value).toBeNaN();
      }),
    );
  });

  it('reads a time without a zone as UTC and keeps one with a zone', () => {
    expect(utcInstant('2026-03-01T09:00')).toBe('2026-03-01T09:00:00Z');
    expect(utcInstant('2026-03-01T09:00:30.5')).toBe('2026-03-01T09:00:30.5Z');
    expect(utcInstant('2026-03-01T09:00:00+02:00')).toBe('2026-03-01T09:00:00+02:00');
    expect(utcInstant('')).toBe(undefined);
  });
});

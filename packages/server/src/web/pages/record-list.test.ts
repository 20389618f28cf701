import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeListCursor, listFingerprint } from '../../list-cursor.js';
import { ProblemError } from '../../problem-error.js';
import {
  choiceField,
  MAX_SEARCH_LENGTH,
  recordIdParam,
  recordListStart,
  searchField,
} from './record-list.js';

/** Runs a field parser: its value, or the ProblemError it threw (anything else fails). */
function outcome<T>(parse: () => T): T | ProblemError {
  try {
    return parse();
  } catch (error) {
    if (error instanceof ProblemError) return error;
    throw error;
  }
}

describe('recordListStart', () => {
  const list = { path: '/contacts', filters: { q: 'ada' } };

  it('reads nothing as the first page, and its own links back', () => {
    expect(recordListStart({}, list)).toBeUndefined();
    const fingerprint = listFingerprint(['web', '/contacts', [['q', 'ada']]]);
    const position = {
      kind: 'createdAt' as const,
      createdAt: '2026-03-01T09:00:00.123456Z',
      id: 'con_1',
    };
    const cursor = encodeListCursor(fingerprint, position);
    expect(recordListStart({ after: cursor }, list)).toEqual({ direction: 'after', position });
    expect(recordListStart({ before: cursor }, list)).toEqual({ direction: 'before', position });
    // Another list's, or another filter's: refused.
    const other = outcome(() =>
      recordListStart({ after: cursor }, { ...list, filters: { q: 'ad' } }),
    );
    expect(other).toBeInstanceOf(ProblemError);
    expect((other as ProblemError).status).toBe(400);
  });

  it('answers a position or a 400 for any text, never anything else', () => {
    fc.assert(
      fc.property(
        fc.record(
          { after: fc.oneof(fc.string(), fc.base64String()), before: fc.string() },
          { requiredKeys: [] },
        ),
        (query) => {
          const result = outcome(() => recordListStart(query, list));
          if (result instanceof ProblemError) expect(result.status).toBe(400);
          // A blank field is no cursor (what an empty form field sends): the first page.
          else if (query.after?.trim() || query.before?.trim()) {
            expect(result?.position.kind).toBe('createdAt');
          } else expect(result).toBeUndefined();
        },
      ),
      { examples: [[{ after: ' ' }], [{ before: '\t' }]] },
    );
  });
});

describe('searchField', () => {
  it('answers the trimmed text up to the limit, a 400 past it or with NUL or a lone surrogate', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400, unit: 'binary' }), (q) => {
        const result = outcome(() => searchField({ q }));
        const trimmed = q.trim();
        const valid =
          trimmed.length <= MAX_SEARCH_LENGTH &&
          !trimmed.includes('\u0000') &&
          trimmed.isWellFormed();
        if (valid) expect(result).toBe(trimmed);
        else expect((result as ProblemError).status).toBe(400);
      }),
    );
  });
});

describe('choiceField', () => {
  it('answers one of the values or nothing; any other text is a 400', () => {
    const values = ['LEAD', 'PATIENT'];
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom('', 'LEAD', 'PATIENT'), fc.string()), (value) => {
        const result = outcome(() => choiceField({ lifecycle: value }, 'lifecycle', values));
        const text = value.slice(0, 100).trim();
        if (text === '' || values.includes(text)) expect(result).toBe(text);
        else expect((result as ProblemError).status).toBe(400);
      }),
    );
  });
});

describe('recordIdParam', () => {
  it('answers printable ASCII ids up to 255 characters, undefined for anything else', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300, unit: 'binary' }), (id) => {
        const result = recordIdParam({ id });
        const trimmed = id.slice(0, 256).trim();
        expect(result).toBe(/^[\x21-\x7e]{1,255}$/.test(trimmed) ? trimmed : undefined);
      }),
    );
    expect(recordIdParam({ id: 'con_01ABC' })).toBe('con_01ABC');
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { STATEMENT_LABELS, statementLabel } from './statement-label.js';

describe('statementLabel', () => {
  it('is always one of the fixed labels, whatever the text', () => {
    fc.assert(
      fc.property(fc.string(), (sql) => {
        expect([...STATEMENT_LABELS, 'SQL']).toContain(statementLabel(sql));
      }),
    );
  });

  it('names a statement by its leading keyword, in any case and after blanks or brackets', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...STATEMENT_LABELS),
        fc.constantFrom('', ' ', '\n  ', '(', ' ( '),
        fc.constantFrom(' ', '\n', '('),
        fc.string(),
        fc.boolean(),
        (keyword, before, after, rest, lower) => {
          const sql = `${before}${lower ? keyword.toLowerCase() : keyword}${after}${rest}`;
          expect(statementLabel(sql)).toBe(keyword);
        },
      ),
    );
  });

  it('is SQL for a word that only begins like a keyword, or for no keyword at all', () => {
    expect(statementLabel("SELECTED 'alice@example.com'")).toBe('SQL');
    expect(statementLabel('INSERT_x')).toBe('SQL');
    expect(statementLabel("'alice@example.com'")).toBe('SQL');
    expect(statementLabel('')).toBe('SQL');
    expect(statementLabel('WITH outbox_event AS (INSERT …) SELECT pending')).toBe('WITH');
  });
});

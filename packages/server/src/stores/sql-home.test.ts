import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// SQL has one home (ARCHITECTURE.md, `stores/`): outside `storage/` (the drivers and the
// migrations) and `stores/`, no source file holds the text of a statement. Routes, pages,
// commands and workers call a store instead.

const sourceRoot = fileURLToPath(new URL('..', import.meta.url));
const homes = ['storage', 'stores'];

/** What marks the text of a statement: upper case, as every statement here is written. */
const statementPatterns: readonly RegExp[] = [
  /\bSELECT\b[^;]*?\bFROM\b/,
  /\bINSERT\s+INTO\b/,
  /\bUPDATE\s+\w+(?:\s+(?:AS\s+)?\w+)?\s+SET\b/,
  /\bDELETE\s+FROM\b/,
  /\bON\s+CONFLICT\b/,
  /\bpg_notify\s*\(/i,
  /\bWITH\s+(?:RECURSIVE\s+)?\w+\s+AS\s+(?:(?:NOT\s+)?MATERIALIZED\s+)?\(/,
  /\bFOR\s+UPDATE\b/,
];

/** The source's code and strings without its comments (TSDoc examples may show SQL). */
function withoutComments(source: string): string {
  const file = ts.createSourceFile('source.ts', source, ts.ScriptTarget.Latest, false);
  return ts.createPrinter({ removeComments: true }).printFile(file);
}

/** The statement-like texts of a source, comments aside. */
function statementsIn(source: string): string[] {
  const code = withoutComments(source);
  return statementPatterns.flatMap((pattern) => code.match(pattern)?.[0] ?? []);
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name) ? [path] : [];
  });
}

describe('the home of SQL', () => {
  it('finds no statement in any source file outside storage/ and stores/', () => {
    const outside = sourceFiles(sourceRoot).filter(
      (path) => !homes.includes(relative(sourceRoot, path).split(sep)[0] ?? ''),
    );
    // The walk found the folders that call stores, not an empty tree.
    expect(outside.map((path) => relative(sourceRoot, path))).toContain('routes/contacts.ts');
    const found = outside.flatMap((path) =>
      statementsIn(readFileSync(path, 'utf8')).map(
        (statement) => `${relative(sourceRoot, path)}: ${statement.slice(0, 80)}`,
      ),
    );
    expect(found).toEqual([]);
  });

  it('sees a statement in a string or a template, and none in a comment', () => {
    const statements = fc.constantFrom(
      'SELECT id FROM contacts WHERE id = $1',
      'INSERT INTO deals (id) VALUES ($1)',
      "UPDATE deliveries SET state = 'dead'",
      'UPDATE webhook_endpoints AS e SET failing_since = NULL',
      'DELETE FROM outbox_events WHERE id = $1',
      'INSERT INTO t (k) VALUES ($1) ON CONFLICT DO NOTHING',
      "SELECT pg_notify($1, '')",
      'WITH ranked AS MATERIALIZED (SELECT 1) SELECT 2',
      'SELECT state FROM webhook_endpoints WHERE id = $1 FOR UPDATE',
    );
    const padding = fc.stringMatching(/^[a-z ]{0,20}$/);
    fc.assert(
      fc.property(statements, padding, (statement, words) => {
        const text = `${words} ${statement} ${words}`;
        expect(statementsIn(`const sql = ${JSON.stringify(text)};`)).not.toEqual([]);
        expect(statementsIn(`const sql = \`${text}\`;`)).not.toEqual([]);
        expect(statementsIn(`run(\`\${a}\n ${text}\`);`)).not.toEqual([]);
        expect(statementsIn(`// ${text}\nconst a = 1;`)).toEqual([]);
        expect(statementsIn(`/**\n * @example\n * ${text}\n */\nexport const a = 1;`)).toEqual([]);
      }),
    );
  });

  it('takes the words of prose for prose', () => {
    // Lower-case English and error messages that name a table are not statements.
    for (const prose of [
      "const message = 'Select a contact from the list.';",
      "const message = 'The update set the state; insert into the form.';",
      "const message = 'deleted from the outbox';",
    ]) {
      expect(statementsIn(prose)).toEqual([]);
    }
  });
});

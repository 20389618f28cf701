/** The labels a statement's span may be named: its leading keyword, or `SQL`. */
export const STATEMENT_LABELS = [
  'SELECT',
  'INSERT',
  'UPDATE',
  'DELETE',
  'WITH',
  'BEGIN',
  'COMMIT',
  'ROLLBACK',
  'SET',
  'SHOW',
  'LISTEN',
  'NOTIFY',
  'LOCK',
  'CREATE',
  'ALTER',
  'DROP',
  'TRUNCATE',
  'VACUUM',
  'ANALYZE',
] as const;

/** A statement's span name: one of {@link STATEMENT_LABELS}, or `SQL` for anything else. */
export type StatementLabel = (typeof STATEMENT_LABELS)[number] | 'SQL';

const labels: ReadonlySet<string> = new Set(STATEMENT_LABELS);
// A keyword's letters at the start, after any blank or `(`: `(SELECT …) UNION …` is a SELECT.
const LEADING_WORD = /^[\s(]*([A-Za-z]{1,16})(?![A-Za-z0-9_])/;

/**
 * @internal The short fixed name of a statement's span: its leading SQL keyword when it is one of
 * {@link STATEMENT_LABELS} (`SELECT`, `INSERT`, `WITH`…), else `SQL`. Never any other part of the
 * text: a span carries no identifier, literal or parameter of the statement, so that a trace
 * backend holds none of the data the statement reads or writes.
 */
export function statementLabel(sql: string): StatementLabel {
  const word = LEADING_WORD.exec(sql)?.[1]?.toUpperCase();
  return word !== undefined && labels.has(word) ? (word as StatementLabel) : 'SQL';
}

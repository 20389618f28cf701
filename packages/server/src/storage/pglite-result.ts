import pg from 'pg';
import { type RowDecoder, rowDecoder } from './row-decoder.js';
import type { ColumnDescription, ErrorFields } from './wire-protocol.js';

const errorFieldNames: Readonly<Record<string, string>> = {
  S: 'severity',
  C: 'code',
  D: 'detail',
  H: 'hint',
  P: 'position',
  p: 'internalPosition',
  q: 'internalQuery',
  W: 'where',
  s: 'schema',
  t: 'table',
  c: 'column',
  d: 'dataType',
  n: 'constraint',
  F: 'file',
  L: 'line',
  R: 'routine',
};

/** An `ErrorResponse` as the same `DatabaseError` that `pg` throws, with the same fields. */
export function databaseError(fields: ErrorFields): pg.DatabaseError {
  const error = new pg.DatabaseError(fields.M ?? 'unknown error', 0, 'error');
  const target = error as unknown as Record<string, string>;
  for (const [letter, name] of Object.entries(errorFieldNames)) {
    const value = fields[letter];
    if (value !== undefined) target[name] = value;
  }
  return error;
}

function rowCountOf(tag: string): number | null {
  const space = tag.lastIndexOf(' ');
  if (space === -1) return null;
  const count = Number(tag.slice(space + 1));
  return Number.isInteger(count) ? count : null;
}

/** Collects one batch's answer: the last statement's rows, its row count, or its error. */
export class ResultCollector {
  rows: Record<string, unknown>[] = [];
  rowCount: number | null = null;
  failure: ErrorFields | undefined;
  parsed = false;
  columns: ColumnDescription[] | null | undefined;
  #decoder: RowDecoder | null | undefined;
  #completed = false;

  constructor(decoder: RowDecoder | null | undefined) {
    this.#decoder = decoder;
  }

  parseComplete(): void {
    this.parsed = true;
  }

  rowDescription(columns: ColumnDescription[]): void {
    this.columns = columns;
    this.#decoder = rowDecoder(columns);
  }

  noData(): void {
    this.columns = null;
    this.#decoder = null;
  }

  dataRow(data: Buffer, offsets: Int32Array, count: number): void {
    if (this.#completed) {
      // The next statement of a simple query: only the last one's result is kept.
      this.rows = [];
      this.#completed = false;
    }
    if (this.#decoder) this.rows.push(this.#decoder(data, offsets, count));
  }

  commandComplete(tag: string): void {
    if (this.#completed) this.rows = [];
    this.#completed = true;
    this.rowCount = rowCountOf(tag);
  }

  error(fields: ErrorFields): void {
    this.failure = fields;
  }

  get decoder(): RowDecoder | null | undefined {
    return this.#decoder;
  }
}

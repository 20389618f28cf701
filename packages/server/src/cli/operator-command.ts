import type { Database } from '../storage/database.js';
import { type CliOptions, UsageError } from './usage.js';

// What every operator command is and answers, and the paging its list commands share.

/** @internal What an operator command answers: its `--json` value and its text for people. */
export interface OperatorOutput {
  json: unknown;
  text: string;
}

/**
 * @internal One operator command. `onProgress`, given only when the command runs in the CLI's
 * own process, reports the progress of a long command (the `seed` progress bar).
 */
export type OperatorCommand = (
  values: CliOptions,
  database: Database,
  onProgress?: (done: number, total: number) => void,
) => Promise<OperatorOutput>;

/** @internal An operator command's answer: its `--json` value and its text. */
export function output(json: unknown, text: string): OperatorOutput {
  return { json, text };
}

/** @internal Rows a list command prints when `--limit` is not given. */
export const DEFAULT_OPERATOR_PAGE = 100;
/** @internal The most rows one list command prints. */
export const MAX_OPERATOR_PAGE = 1000;

/** @internal `--limit` (1 to 1000, default 100) and `--offset` of a list command. */
export function pageOf(values: CliOptions): { limit: number; offset: number } {
  const limitText = values.limit ?? String(DEFAULT_OPERATOR_PAGE);
  const offsetText = values.offset ?? '0';
  const limit = /^\d{1,4}$/.test(limitText) ? Number(limitText) : 0;
  if (limit < 1 || limit > MAX_OPERATOR_PAGE) {
    throw new UsageError(`--limit is a whole number from 1 to ${MAX_OPERATOR_PAGE}.`);
  }
  if (!/^\d{1,9}$/.test(offsetText)) {
    throw new UsageError('--offset is a whole number of rows to skip.');
  }
  return { limit, offset: Number(offsetText) };
}

/**
 * @internal A page of a list: the rows as JSON, the lines as text, and where the next page
 * starts.
 */
export function listOutput<Row>(
  rows: readonly Row[],
  line: (row: Row) => string,
  page: { limit: number; offset: number },
): OperatorOutput {
  const more =
    rows.length === page.limit
      ? `(${page.limit} shown, a full page: for more, --offset ${page.offset + page.limit})\n`
      : '';
  return output(rows, rows.map(line).join('') + more);
}

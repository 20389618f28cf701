import type { DatabaseError } from 'pg-protocol';
import type {
  BackendMessage,
  CommandCompleteMessage,
  DataRowMessage,
  RowDescriptionMessage,
} from 'pg-protocol/dist/messages.js';
import type { QueryResult } from './database.js';
import { type RowDecoder, rowDecoder } from './row-decoder.js';

function rowCountOf(tag: string): number | null {
  const space = tag.lastIndexOf(' ');
  if (space === -1) return null;
  const count = Number(tag.slice(space + 1));
  return Number.isInteger(count) ? count : null;
}

/**
 * @internal Collects one batch's answer, as `pg-protocol`'s parser reads it: the last
 * statement's rows, its row count, or its error (the `DatabaseError` that `pg` throws, with the
 * same fields). With `generic`, the statement runs between two that set the plan cache's mode,
 * whose answers are passed over. With `probe`, the batch ends with {@link WROTE_PROBE_SQL}'s
 * statement, run after the statement in the same transaction: its one row says whether the
 * statement wrote. Those statements are prepared beforehand, so they add no description and no
 * `ParseComplete`.
 */
export class ResultCollector {
  rows: Record<string, unknown>[] = [];
  rowCount: number | null = null;
  failure: DatabaseError | undefined;
  /** Whether the statement of the batch was parsed (`ParseComplete`). */
  parsed = false;
  /** What the probe answered: whether the statement's transaction wrote anything. */
  wrote: boolean | undefined;
  #decoder: RowDecoder | null | undefined;
  #completed = false;
  readonly #probe: boolean;
  /** The answers still to pass over before the statement's, and right after it. */
  #before: number;
  #after: number;

  constructor(
    decoder: RowDecoder | null | undefined,
    { probe = false, generic = false }: { probe?: boolean; generic?: boolean } = {},
  ) {
    this.#decoder = decoder;
    this.#probe = probe;
    this.#before = generic ? 1 : 0;
    this.#after = generic ? 1 : 0;
  }

  /** Takes one backend message; messages of no interest (`BindComplete`, notices…) are skipped. */
  readonly message = (message: BackendMessage): void => {
    switch (message.name) {
      case 'dataRow':
        this.#dataRow((message as DataRowMessage).fields);
        break;
      case 'commandComplete':
        this.#commandComplete((message as CommandCompleteMessage).text);
        break;
      case 'rowDescription':
        this.#decoder = rowDecoder((message as RowDescriptionMessage).fields);
        break;
      case 'noData':
        this.#decoder = null;
        break;
      case 'parseComplete':
        this.parsed = true;
        break;
      case 'error':
        this.failure = message as DatabaseError;
        break;
      default:
        break;
    }
  };

  #dataRow(fields: readonly (string | null)[]): void {
    if (this.#before > 0 || (this.#completed && this.#after > 0)) return;
    if (this.#completed) {
      if (this.#probe) {
        this.wrote = fields[0] === 't';
        return;
      }
      // The next statement of a simple query: only the last one's result is kept.
      this.rows = [];
      this.#completed = false;
    }
    if (this.#decoder) this.rows.push(this.#decoder(fields));
  }

  #commandComplete(tag: string): void {
    if (this.#before > 0) {
      this.#before--;
      return;
    }
    if (this.#completed && this.#after > 0) {
      this.#after--;
      return;
    }
    if (this.#completed) {
      if (this.#probe) return;
      this.rows = [];
    }
    this.#completed = true;
    this.rowCount = rowCountOf(tag);
  }

  /** The row decoder of the statement, as its description (or the one given) made it. */
  get decoder(): RowDecoder | null | undefined {
    return this.#decoder;
  }
}

/**
 * @internal Whether the current transaction has written anything: PostgreSQL gives a transaction
 * an id at its first write, and only a transaction with an id commits a record that must be
 * flushed (a read commits nothing, even with `synchronous_commit` on).
 */
export const WROTE_PROBE_SQL = 'SELECT pg_current_xact_id_if_assigned() IS NOT NULL AS wrote';

/** @internal The row of {@link WROTE_PROBE_SQL}'s statement, described by nobody: its one boolean. */
export const probeRow: RowDecoder = (fields) => ({ wrote: fields[0] === 't' });

/** @internal A batch's answer as a {@link QueryResult}, or its error thrown. */
export function resultOf<Row>(collector: ResultCollector): QueryResult<Row> {
  if (collector.failure) throw collector.failure;
  return {
    rows: collector.rows as Row[],
    rowCount: collector.rowCount ?? collector.rows.length,
  };
}

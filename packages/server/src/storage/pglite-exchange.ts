import type { PGlite } from '@electric-sql/pglite';
import pgUtils from 'pg/lib/utils.js';
import { serialize } from 'pg-protocol';
import { Parser } from 'pg-protocol/dist/parser.js';
import { type ResultCollector, WROTE_PROBE_SQL } from './pglite-result.js';
import type { PreparedStatement } from './statement-cache.js';

/** The name of {@link WROTE_PROBE_SQL}'s statement, outside the cache's names (`s1`, `s2`…). */
const WROTE_PROBE = 'followup_wrote';
/**
 * The statements that switch the plan cache to the generic plan for the rest of the batch's
 * transaction (`set_config`'s `is_local`, undone by the `Sync` that ends an implicit one, or by
 * the `ROLLBACK` of a failed one) and back (PostgreSQL's default, which PGlite's server is never
 * given another). The plan is chosen at `Bind`.
 */
const GENERIC_PLANS = 'followup_generic_plans';
const CHOSEN_PLANS = 'followup_chosen_plans';
const SYNC = serialize.sync();
const run = (statement: string) =>
  Buffer.concat([serialize.bind({ statement }), serialize.execute()]);
const PROBE = run(WROTE_PROBE);

/**
 * @internal Prepares {@link WROTE_PROBE_SQL}'s statement and those that switch the plan cache to
 * the generic plan and back, once per database.
 */
export const PREPARE_FIXED_BATCH = Buffer.concat([
  serialize.parse({ name: WROTE_PROBE, text: WROTE_PROBE_SQL }),
  serialize.parse({
    name: GENERIC_PLANS,
    text: "SELECT set_config('plan_cache_mode', 'force_generic_plan', true)",
  }),
  serialize.parse({
    name: CHOSEN_PLANS,
    text: "SELECT set_config('plan_cache_mode', 'auto', true)",
  }),
  SYNC,
]);

/** @internal Runs {@link WROTE_PROBE_SQL}'s statement alone (in an open transaction). */
export const PROBE_BATCH = Buffer.concat([PROBE, SYNC]);

/**
 * @internal One batch of the extended protocol: the `Close` of each retired statement, then
 * `sql` as `statement`: parsed and described under its name (`''`, the unnamed statement) unless
 * it was prepared (its shape known), bound to `params` as `pg` writes them (`Buffer`s in binary,
 * the rest as text), executed; when the statement is `generic`, between a statement that has the
 * plan cache choose the generic plan and one that lets it choose again (see `ResultCollector`'s
 * `generic`); with `probe`, {@link WROTE_PROBE_SQL}'s statement executed after it, in the same
 * transaction.
 */
export function extendedBatch(options: {
  retired: readonly string[];
  statement: PreparedStatement<unknown>;
  sql: string;
  params: readonly unknown[];
  probe: boolean;
}): Buffer {
  const { generic, shape } = options.statement;
  const name = options.statement.name ?? '';
  const messages: Buffer[] = [];
  for (const retired of options.retired)
    messages.push(serialize.close({ type: 'S', name: retired }));
  if (generic) messages.push(run(GENERIC_PLANS));
  if (shape === undefined) {
    messages.push(
      serialize.parse({ name, text: options.sql }),
      serialize.describe({ type: 'S', name }),
    );
  }
  messages.push(
    serialize.bind({
      statement: name,
      values: options.params as unknown[],
      valueMapper: pgUtils.prepareValue,
    }),
    serialize.execute(),
  );
  if (generic) messages.push(run(CHOSEN_PLANS));
  if (options.probe) messages.push(PROBE);
  messages.push(SYNC);
  return Buffer.concat(messages);
}

/** @internal One batch of the simple protocol: `sql`, one or several statements. */
export function simpleBatch(sql: string): Buffer {
  return serialize.query(sql);
}

/**
 * @internal Sends `batch` to PGlite and hands each message of its answer, as `pg-protocol`'s
 * parser reads it, to `collector`.
 */
export async function exchange(
  pglite: PGlite,
  batch: Buffer,
  collector: ResultCollector,
): Promise<void> {
  const parser = new Parser();
  // The streaming raw entry hands the backend's bytes over as they are written, without
  // PGlite's own JavaScript parse of them (which its other entries, even execProtocolRaw, do).
  await pglite.execProtocolRawStream(batch, {
    // PGlite's sync step copies an in-memory file system to its store (IndexedDB, in a
    // browser). The file systems this server opens, a data directory (NODEFS) or memory, write
    // through and have nothing to copy; the step still took a mutex and promises per statement.
    syncToFs: false,
    onRawData: (chunk) => {
      // A view of the engine's memory, reused for the next chunk, where a message cut in two
      // waits for its end: copied.
      parser.parse(Buffer.from(chunk), collector.message);
    },
  });
}

/**
 * @internal Forces the WAL onto stable storage, when anything was written since the last time:
 * a logical decoding message of no content, written and flushed on its own (`flush` = true),
 * flushes every record before it, every commit made with `synchronous_commit` off included.
 */
export const FLUSH_WAL_SQL = `SELECT pg_logical_emit_message(false, 'followup.flush', '', true)
  WHERE pg_current_wal_flush_lsn() < pg_current_wal_insert_lsn()`;

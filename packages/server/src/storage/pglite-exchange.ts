import type { PGlite } from '@electric-sql/pglite';
import pgUtils from 'pg/lib/utils.js';
import { serialize } from 'pg-protocol';
import { Parser } from 'pg-protocol/dist/parser.js';
import { type ResultCollector, WROTE_PROBE_SQL } from './pglite-result.js';

/** The name of {@link WROTE_PROBE_SQL}'s statement, outside the cache's names (`s1`, `s2`…). */
const WROTE_PROBE = 'followup_wrote';
const SYNC = serialize.sync();
const PROBE = Buffer.concat([serialize.bind({ statement: WROTE_PROBE }), serialize.execute()]);

/** @internal Prepares {@link WROTE_PROBE_SQL}'s statement, once per database. */
export const PREPARE_PROBE_BATCH = Buffer.concat([
  serialize.parse({ name: WROTE_PROBE, text: WROTE_PROBE_SQL }),
  SYNC,
]);

/** @internal Runs {@link WROTE_PROBE_SQL}'s statement alone (in an open transaction). */
export const PROBE_BATCH = Buffer.concat([PROBE, SYNC]);

/**
 * @internal One batch of the extended protocol: the `Close` of each retired statement, then
 * `sql` parsed and described as `name` (`''`, the unnamed statement) unless it is `prepared`,
 * bound to `params` as `pg` writes them (`Buffer`s in binary, the rest as text), executed; with
 * `probe`, {@link WROTE_PROBE_SQL}'s statement executed after it, in the same transaction.
 */
export function extendedBatch(options: {
  retired: readonly string[];
  name: string;
  prepared: boolean;
  sql: string;
  params: readonly unknown[];
  probe: boolean;
}): Buffer {
  const { name } = options;
  const messages: Buffer[] = [];
  for (const retired of options.retired)
    messages.push(serialize.close({ type: 'S', name: retired }));
  if (!options.prepared) {
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

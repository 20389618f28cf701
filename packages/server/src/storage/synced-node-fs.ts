import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';

/** The part of an Emscripten stream of NODEFS that `fsync` needs: the Node file descriptor. */
interface NodeStream {
  nfd: number;
}

/** The part of Emscripten's NODEFS that this file extends. */
interface EmscriptenNodeFs {
  stream_ops: { fsync?: (stream: NodeStream) => void };
  tryFSOperation<T>(operation: () => T): T;
}

/**
 * @internal PGlite's file system for a data directory (its `NodeFS`, Emscripten's NODEFS) with
 * an `fsync` that reaches the disk.
 *
 * NODEFS writes through to the files with `fs.writeSync`, so a killed process loses nothing,
 * but it has no `fsync`: PostgreSQL's `fsync()` of a WAL segment, a data file at a checkpoint,
 * `pg_control` or a directory returned success without any system call, and the write stayed in
 * the page cache, lost with it on a power cut or a kernel crash. (PostgreSQL's `fdatasync()`
 * is a stub in the engine's build that cannot be replaced from here; {@link DURABLE_START_PARAMETERS}
 * makes the WAL use `fsync()`.) The Node error of a failed `fsync` reaches PostgreSQL as its
 * `errno`, which PostgreSQL treats as it does on disk: a PANIC, never a retry.
 */
export class SyncedNodeFS extends NodeFS {
  override async init(
    pg: PGlite,
    options: Parameters<NodeFS['init']>[1],
  ): ReturnType<NodeFS['init']> {
    const { emscriptenOpts } = await super.init(pg, options);
    return {
      emscriptenOpts: {
        ...emscriptenOpts,
        preRun: [
          ...(emscriptenOpts.preRun ?? []),
          (module) => {
            // NODEFS's stream operations are one object shared by every node of this module (of
            // this PGlite only), read at each call, so the method added before PostgreSQL starts
            // serves every file it opens.
            const nodeFs = (module as unknown as { NODEFS: EmscriptenNodeFs }).NODEFS;
            nodeFs.stream_ops.fsync = (stream) => {
              nodeFs.tryFSOperation(() => fs.fsyncSync(stream.nfd));
            };
          },
        ],
      },
    };
  }
}

/**
 * @internal PGlite's start parameters for a durable data directory: its defaults without `-F`
 * (which turns `fsync` off), with the WAL synced by `fsync()` (see {@link SyncedNodeFS}), and
 * with commits that do not wait for that sync themselves: the driver acknowledges a statement
 * only after one WAL flush that follows it, shared by every statement that ran before it (group
 * commit; see `docs/decisions.md`).
 */
export const DURABLE_START_PARAMETERS: readonly string[] = [
  ...PGlite.defaultStartParams.filter((parameter) => parameter !== '-F'),
  '-c',
  'fsync=on',
  '-c',
  'wal_sync_method=fsync',
  '-c',
  'synchronous_commit=off',
];

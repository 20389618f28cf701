import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';

/** The part of an Emscripten stream of NODEFS that `fsync` needs: the Node file descriptor. */
interface NodeStream {
  nfd: number;
}

/** The part of Emscripten's NODEFS that this file extends. */
interface EmscriptenNodeFs {
  stream_ops: { fsync?: (stream: NodeStream) => void; close: (stream: NodeStream) => void };
  tryFSOperation<T>(operation: () => T): T;
}

/** `fs.fsync` in Node's thread pool, looked up at each call (tests replace it). */
function fsyncInPool(fd: number): Promise<void> {
  return new Promise((resolve, reject) => {
    fs.fsync(fd, (error) => (error ? reject(error) : resolve()));
  });
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
 *
 * The WAL flush that group commit sends after a burst of writes runs in {@link
 * SyncedNodeFS.syncedAfter}: the engine's `fsync` of the WAL is made in Node's thread pool rather
 * than in the server's one thread, which serves requests and sends webhooks while the disk works.
 */
export class SyncedNodeFS extends NodeFS {
  /** While a flush runs in {@link SyncedNodeFS.syncedAfter}: the descriptors left to sync. */
  #deferred: Set<number> | undefined;
  /** The error of a sync made in the pool: every later sync the engine asks for fails with it. */
  #failure: Error | undefined;

  /**
   * Runs `work`, which is the engine's WAL flush and nothing else, with each `fsync` the engine
   * asks for recorded rather than made, then makes them in Node's thread pool; settles once all
   * of them reached the disk. The caller keeps the engine idle until then (the driver holds the
   * engine's turn), so that nothing the engine does relies on the WAL being synced before it is:
   * no data page is written, and no result handed over, ahead of the sync. A descriptor the engine
   * closes meanwhile is synced first, in this thread. A sync that fails rejects, and leaves the
   * engine to fail every sync it asks for later with the same error: PostgreSQL's PANIC, as if
   * its own `fsync` had failed, rather than a retry on pages the kernel may have dropped.
   */
  async syncedAfter(work: () => Promise<void>): Promise<void> {
    if (this.#failure) throw this.#failure;
    const deferred = new Set<number>();
    this.#deferred = deferred;
    let outcome: { failed: false } | { failed: true; error: unknown } = { failed: false };
    try {
      await work();
    } catch (error) {
      outcome = { failed: true, error };
    } finally {
      this.#deferred = undefined;
    }
    // The engine took these syncs as made, so they are made even when `work` failed later.
    try {
      await Promise.all([...deferred].map((fd) => fsyncInPool(fd)));
    } catch (error) {
      this.#failure = error instanceof Error ? error : new Error(String(error));
      throw this.#failure;
    }
    if (outcome.failed) throw outcome.error;
  }

  /** The engine's `fsync` of `fd`: made now, recorded in a flush, or failed after a failure. */
  #fsync(fd: number): void {
    if (this.#failure) throw this.#failure;
    if (this.#deferred) {
      this.#deferred.add(fd);
      return;
    }
    fs.fsyncSync(fd);
  }

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
              nodeFs.tryFSOperation(() => this.#fsync(stream.nfd));
            };
            const close = nodeFs.stream_ops.close;
            nodeFs.stream_ops.close = (stream) => {
              // A sync recorded in a flush is made before its descriptor goes (a WAL segment
              // that the flush filled is closed after its sync).
              if (this.#deferred?.delete(stream.nfd)) {
                nodeFs.tryFSOperation(() => fs.fsyncSync(stream.nfd));
              }
              close.call(nodeFs.stream_ops, stream);
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

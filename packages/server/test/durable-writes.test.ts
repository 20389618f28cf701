import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNCED_MARKER_FILE } from '../src/storage/data-directory-sync.js';
import { testDriver } from './support/database.js';
import { useKillableServer } from './support/killable-server.js';
import { parseStrace, straceUnavailable, type TracedCall } from './support/strace.js';

// Durability on the embedded database, seen from the kernel: the built server, a process of its
// own, runs under strace on a new data directory, and every create it answers 201 must have had
// its write-ahead log fsynced first (a killed process keeps what it wrote to the page cache; a
// power cut or a kernel crash does not). PGlite only: PostgreSQL's durability is its own server's.
const unavailable = testDriver === 'pglite' ? straceUnavailable() : undefined;
if (unavailable !== undefined) console.warn(`durable-writes.test.ts skipped: ${unavailable}`);

const SEQUENTIAL_CREATES = 10;
const CONCURRENT_CLIENTS = 4;
const CREATES_PER_CLIENT = 10;

const WRITES = new Set(['write', 'pwrite64', 'writev']);
const SYNCS = new Set(['fsync', 'fdatasync']);

/** The path an `unlink*` or `rename*` call names as its `index`th quoted argument. */
function quotedPath(call: TracedCall, index: number): string | undefined {
  return [...call.arguments.matchAll(/"((?:[^"\\]|\\.)*)"/g)][index]?.[1];
}

describe.runIf(testDriver === 'pglite' && unavailable === undefined)(
  'acknowledged writes on the embedded database, traced with strace',
  () => {
    const { dataDir, startServer } = useKillableServer('followup-durable-', {
      startArguments: ['--demo', '--rate-limit', '1000000'],
    });
    let traceDir: string;
    beforeAll(async () => {
      traceDir = await mkdtemp(join(tmpdir(), 'followup-strace-'));
    });
    afterAll(async () => {
      await rm(traceDir, { recursive: true, force: true });
    });

    it('syncs a new cluster before the first query, and the WAL of every create before its 201', async () => {
      const tracePath = join(traceDir, 'server.trace');
      const { child, url, token } = await startServer({
        under: [
          'strace',
          '-f',
          '-qq',
          '-y',
          '-s',
          '48',
          '--seccomp-bpf',
          '-e',
          'trace=read,write,writev,pwrite64,fsync,fdatasync,unlink,unlinkat,rename,renameat,renameat2',
          '-o',
          tracePath,
        ],
      });
      const create = async (index: number): Promise<number> => {
        const response = await fetch(`${url}/api/contacts`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ firstName: `Durable ${index}`, lastName: 'Test' }),
        });
        await response.arrayBuffer();
        return response.status;
      };
      const statuses: number[] = [];
      try {
        // One at a time, then several clients at once (their creates share WAL flushes).
        for (let index = 0; index < SEQUENTIAL_CREATES; index++) statuses.push(await create(index));
        await Promise.all(
          Array.from({ length: CONCURRENT_CLIENTS }, async (_, client) => {
            for (let index = 0; index < CREATES_PER_CLIENT; index++) {
              statuses.push(await create(1000 * (client + 1) + index));
            }
          }),
        );
      } finally {
        // The server is strace's child; the first traced call is the server's main thread.
        const firstLine = (await readFile(tracePath, 'utf8')).split('\n', 1)[0] as string;
        const exited = once(child, 'exit');
        process.kill(Number(firstLine.split(' ', 1)[0]), 'SIGTERM');
        await exited;
      }
      const creates = SEQUENTIAL_CREATES + CONCURRENT_CLIENTS * CREATES_PER_CLIENT;
      expect(statuses).toEqual(Array(creates).fill(201));

      const calls = parseStrace(await readFile(tracePath, 'utf8')).filter(
        (call) => call.result >= 0,
      );
      const directory = `${dataDir()}/`;
      const walDirectory = `${directory}pg_wal/`;
      const marker = `${directory}${SYNCED_MARKER_FILE}`;

      // 1. Every file of the new cluster written before the marker was fsynced after its last
      //    write and before the marker, and the directory after the marker: all of it on disk
      //    before the first query. Paths removed or renamed before then are followed.
      const unsynced = new Set<string>();
      let markerSynced = false;
      for (const call of calls) {
        if (WRITES.has(call.name) && call.target?.startsWith(directory)) {
          if (call.target === marker) break;
          unsynced.add(call.target);
        } else if (SYNCS.has(call.name) && call.target !== undefined) {
          unsynced.delete(call.target);
        } else if (call.name.startsWith('unlink')) {
          unsynced.delete(quotedPath(call, 0) ?? '');
        } else if (call.name.startsWith('rename')) {
          const [from, to] = [quotedPath(call, 0), quotedPath(call, 1)];
          if (from !== undefined && unsynced.delete(from) && to !== undefined) unsynced.add(to);
        }
      }
      expect([...unsynced]).toEqual([]);
      for (const call of calls) {
        if (SYNCS.has(call.name) && call.target === marker) markerSynced = true;
      }
      expect(markerSynced).toBe(true);

      // 2. No 201 leaves while a WAL segment holds a write not yet fsynced, and each one follows
      //    a WAL fsync made after its request was read: its commit reached the disk first.
      const unsyncedWal = new Set<string>();
      const walSyncedSinceRead = new Map<string, boolean>();
      // WAL fsyncs from the first create's request to the last 201.
      let walSyncsWhileCreating = 0;
      let creating = false;
      let acknowledged = 0;
      for (const call of calls) {
        const target = call.target ?? '';
        if (WRITES.has(call.name) && target.startsWith(walDirectory)) {
          unsyncedWal.add(target);
        } else if (SYNCS.has(call.name) && target.startsWith(walDirectory)) {
          unsyncedWal.delete(target);
          if (creating && acknowledged < creates) walSyncsWhileCreating++;
          for (const socket of walSyncedSinceRead.keys()) walSyncedSinceRead.set(socket, true);
        } else if (call.name === 'read' && target.startsWith('socket:') && call.result > 0) {
          walSyncedSinceRead.set(target, false);
          if (call.arguments.includes('"POST /api/contacts ')) creating = true;
        } else if (
          WRITES.has(call.name) &&
          target.startsWith('socket:') &&
          call.arguments.includes('"HTTP/1.1 201 ')
        ) {
          acknowledged++;
          expect({ call: acknowledged, unsyncedWal: [...unsyncedWal] }).toEqual({
            call: acknowledged,
            unsyncedWal: [],
          });
          expect({ call: acknowledged, synced: walSyncedSinceRead.get(target) }).toEqual({
            call: acknowledged,
            synced: true,
          });
        }
      }
      expect(acknowledged).toBe(creates);
      // Group commit: at most one WAL flush per create, fewer when creates wait together.
      expect(walSyncsWhileCreating).toBeGreaterThan(0);
      expect(walSyncsWhileCreating).toBeLessThanOrEqual(creates);
    });
  },
);

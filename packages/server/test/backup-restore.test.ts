import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run-cli.js';
import { captureIo } from './support/cli-io.js';
import { writeMigratedDataDirectory } from './support/pglite-template.js';

// A backup of a running server under write load, restored into a new directory and started:
// every contact acknowledged (201) before the backup started is there, with the token and the
// endpoint made before it. Backups copy an embedded PGlite data directory (PostgreSQL has
// pg_dump), so this file runs once, on PGlite.
const WRITERS = 4;
const ACKNOWLEDGED_BEFORE_BACKUP = 40;
// The writers stop once the backup ends or once this many writes were acknowledged while it ran,
// whichever comes first. Writes wait only while the files are copied, early in the backup, so
// most of these land after the copy (171 of 203 in one run): enough to show the server went on
// serving. A load lasting the whole backup wrote 12,000 rows that the backup then packed and
// gzipped, while they competed with it for the CPU: 100 s of this test's 117.
const ACKNOWLEDGED_DURING_BACKUP = 200;
// Each test opens on-disk PGlite data directories several times (start, restore, start again):
// at load 15 on two cores that took 120 s, past the suite's guard against a hung test.
const WHOLE_SERVERS_TIMEOUT = 360_000;

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const { io, out, err } = captureIo();
  const code = await runCli(argv, io);
  return { code, out: out.join(''), err: err.join('') };
}

async function runJson<T>(argv: string[]): Promise<T> {
  const result = await run([...argv, '--json']);
  expect(result.err).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.out) as T;
}

/** Starts `followup-server start` on `dataDir`; resolves with its URL and how to stop it. */
async function startServer(dataDir: string): Promise<{ url: string; stop(): Promise<number> }> {
  const controller = new AbortController();
  const { io, firstLine } = captureIo({}, controller.signal);
  const exit = runCli(
    ['start', '--port', '0', '--json', '--data-dir', dataDir, '--rate-limit', '0'],
    io,
  );
  const { url } = JSON.parse(await firstLine) as { url: string };
  return {
    url,
    stop: () => {
      controller.abort();
      return exit;
    },
  };
}

/** Every file and directory under `dir` (paths relative to it) with its permission bits. */
async function modesUnder(dir: string): Promise<Map<string, number>> {
  const modes = new Map<string, number>();
  for (const entry of await readdir(dir, { recursive: true })) {
    modes.set(entry, (await stat(join(dir, entry))).mode & 0o777);
  }
  return modes;
}

describe('followup-server backup and restore', () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'followup-backup-'));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it(
    'backs up a running server under write load; the restored copy has every acknowledged contact, the token and the endpoint',
    async () => {
      // A migrated database, as a first start leaves one (run-cli.test.ts tests that start).
      const dataDir = join(scratch, 'live');
      await writeMigratedDataDirectory(dataDir);
      const server = await startServer(dataDir);
      // Through the running server's operator channel, as an operator would.
      const account = await runJson<{ id: string }>([
        'accounts',
        'create',
        '--name',
        'crm',
        '--role',
        'ADMIN',
        '--data-dir',
        dataDir,
      ]);
      const { token } = await runJson<{ token: string }>([
        'tokens',
        'issue',
        '--account',
        account.id,
        '--data-dir',
        dataDir,
      ]);
      const endpoint = await runJson<{ id: string }>([
        'endpoints',
        'add',
        '--url',
        'https://hooks.example.com/followup',
        '--data-dir',
        dataDir,
      ]);

      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const acknowledgedBeforeBackup: string[] = [];
      let backupStarted = false;
      let backupEnded = false;
      const acknowledgedDuringBackup: string[] = [];
      let stop = false;
      let sequence = 0;
      let reachedTarget: () => void = () => {};
      const target = new Promise<void>((resolve) => {
        reachedTarget = resolve;
      });
      async function writer(): Promise<void> {
        while (!stop && acknowledgedDuringBackup.length < ACKNOWLEDGED_DURING_BACKUP) {
          const index = sequence++;
          const response = await fetch(`${server.url}/api/contacts`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ firstName: `Backup ${index}`, lastName: 'Load' }),
          });
          const body = (await response.json()) as { id: string };
          if (response.status !== 201) continue;
          if (!backupStarted) acknowledgedBeforeBackup.push(body.id);
          else if (!backupEnded) acknowledgedDuringBackup.push(body.id);
          if (acknowledgedBeforeBackup.length >= ACKNOWLEDGED_BEFORE_BACKUP) reachedTarget();
        }
      }
      const writers = Array.from({ length: WRITERS }, writer);
      await target;
      // Taken while the writers go on: the running server copies its own database.
      backupStarted = true;
      const file = join(scratch, 'followup.tar.gz');
      const backup = await run(['backup', '--out', file, '--data-dir', dataDir, '--json']);
      backupEnded = true;
      stop = true;
      await Promise.all(writers);
      expect(await server.stop()).toBe(0);
      expect(backup.err).toBe('');
      expect(backup.code).toBe(0);

      const printed = JSON.parse(backup.out) as { file: string; bytes: number; sha256: string };
      const bytes = await readFile(file);
      expect(printed.file).toBe(file);
      expect(printed.bytes).toBe(bytes.length);
      expect(printed.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      // Nothing but the backup beside it: its temporary name is gone.
      expect(await readdir(scratch)).toEqual(expect.arrayContaining(['followup.tar.gz', 'live']));
      expect((await readdir(scratch)).filter((name) => name.endsWith('.tmp'))).toEqual([]);

      const restoredDir = join(scratch, 'restored');
      const restored = await run(['restore', '--from', file, '--data-dir', restoredDir]);
      expect(restored.err).toBe('');
      expect(restored.code).toBe(0);
      expect(restored.out).toContain(`into ${restoredDir}`);
      for (const [path, mode] of await modesUnder(restoredDir)) {
        expect({ path, others: mode & 0o077 }).toEqual({ path, others: 0 });
      }
      // The process's own files stayed behind: no lock, no channel key.
      const top = await readdir(restoredDir);
      expect(top).not.toContain('followup-server.lock');
      expect(top).not.toContain('operator-channel.json');
      expect(top.filter((name) => name.startsWith('.followup-backup-'))).toEqual([]);

      const copy = await startServer(restoredDir);
      try {
        const missing: string[] = [];
        for (const id of acknowledgedBeforeBackup) {
          const response = await fetch(`${copy.url}/api/contacts/${id}`, { headers });
          if (response.status !== 200) missing.push(`${id}: ${response.status}`);
        }
        expect(missing).toEqual([]);
        // It went on serving: writes waited for the files' copy, not for the whole backup, so
        // some acknowledged while the backup ran came after the copy and are not in it.
        let afterTheCopy = 0;
        for (const id of acknowledgedDuringBackup) {
          const response = await fetch(`${copy.url}/api/contacts/${id}`, { headers });
          expect([200, 404]).toContain(response.status);
          if (response.status === 404) afterTheCopy++;
        }
        expect(afterTheCopy).toBeGreaterThan(0);
        const endpoints = await fetch(`${copy.url}/api/webhook-endpoints`, { headers });
        expect(endpoints.status).toBe(200);
        const listed = (await endpoints.json()) as {
          webhookEndpoints: { id: string; url: string }[];
        };
        expect(listed.webhookEndpoints.map(({ id, url }) => ({ id, url }))).toEqual([
          { id: endpoint.id, url: 'https://hooks.example.com/followup' },
        ]);
        // The copy takes writes of its own.
        const created = await fetch(`${copy.url}/api/contacts`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ firstName: 'After', lastName: 'Restore' }),
        });
        expect(created.status).toBe(201);
      } finally {
        expect(await copy.stop()).toBe(0);
      }
    },
    WHOLE_SERVERS_TIMEOUT,
  );

  it(
    'backs up a stopped server under its lock, and keeps an existing file unless --force',
    async () => {
      const dataDir = join(scratch, 'stopped');
      await writeMigratedDataDirectory(dataDir);
      const account = await runJson<{ id: string }>([
        'accounts',
        'create',
        '--name',
        'offline',
        '--role',
        'READONLY',
        '--data-dir',
        dataDir,
        '--unsafe-no-fsync',
      ]);
      const file = join(scratch, 'stopped.tar.gz');
      const first = await runJson<{ sha256: string; schemaVersion: number }>([
        'backup',
        '--out',
        file,
        '--data-dir',
        dataDir,
        '--unsafe-no-fsync',
      ]);
      expect(first.schemaVersion).toBeGreaterThan(0);
      const kept = await readFile(file);

      const again = await run([
        'backup',
        '--out',
        file,
        '--data-dir',
        dataDir,
        '--unsafe-no-fsync',
      ]);
      expect(again.code).toBe(1);
      expect(again.err).toContain('exists: name another file, or pass --force');
      expect(await readFile(file)).toEqual(kept);

      const forced = await runJson<{ sha256: string }>([
        'backup',
        '--out',
        file,
        '--force',
        '--data-dir',
        dataDir,
        '--unsafe-no-fsync',
      ]);
      expect(forced.sha256).toBe(
        createHash('sha256')
          .update(await readFile(file))
          .digest('hex'),
      );

      const restoredDir = join(scratch, 'stopped-restored');
      expect((await run(['restore', '--from', file, '--data-dir', restoredDir])).code).toBe(0);
      const accounts = await runJson<{ id: string }[]>([
        'accounts',
        'list',
        '--data-dir',
        restoredDir,
        '--unsafe-no-fsync',
      ]);
      expect(accounts.map((row) => row.id)).toEqual([account.id]);
    },
    WHOLE_SERVERS_TIMEOUT,
  );

  it('lists both commands in --help, and refuses an option they do not take (exit 2)', async () => {
    const help = await run(['--help']);
    expect(help.out).toContain('backup --out FILE [--force]');
    expect(help.out).toContain('restore --from FILE --data-dir DIR');
    const refused = await run(['backup', '--out', join(scratch, 'x.tar.gz'), '--from', 'y']);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('backup does not take --from');
    const missing = await run(['restore', '--data-dir', join(scratch, 'nowhere')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('--from is required');
  });

  it('refuses to back up or restore PostgreSQL, pointing to pg_dump (exit 2)', async () => {
    const url = 'postgres://followup@127.0.0.1:1/followup';
    for (const argv of [
      ['backup', '--out', join(scratch, 'pg.tar.gz'), '--database-url', url],
      [
        'restore',
        '--from',
        join(scratch, 'pg.tar.gz'),
        '--data-dir',
        scratch,
        '--database-url',
        url,
      ],
    ]) {
      const result = await run(argv);
      expect(result.code).toBe(2);
      expect(result.err).toContain('on PostgreSQL use pg_dump -Fc and pg_restore');
    }
  });
});

import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openTestDatabase,
  testDatabaseUrl,
  testDriver,
  uniqueSchemaName,
} from '../../test/support/database.js';
import { LOCK_FILE_NAME } from '../storage/data-directory-lock.js';
import { type CliIo, runCli } from './run-cli.js';

function captureIo(env: CliIo['env'] = {}, signal?: AbortSignal) {
  const out: string[] = [];
  const err: string[] = [];
  let announce: (line: string) => void = () => {};
  const firstLine = new Promise<string>((resolve) => {
    announce = resolve;
  });
  const io: CliIo = {
    stdout: {
      write: (text: string) => {
        out.push(text);
        announce(out.join(''));
      },
    },
    stderr: { write: (text: string) => err.push(text) },
    env,
    ...(signal ? { signal } : {}),
  };
  return { io, out, err, firstLine };
}

describe('followup-server', () => {
  it('prints its usage with --help', async () => {
    const { io, out } = captureIo();
    expect(await runCli(['--help'], io)).toBe(0);
    expect(out.join('')).toContain('Usage: followup-server <command>');
  });

  it('exits 2 with the usage on a missing or unknown command or option', async () => {
    for (const argv of [[], ['launch'], ['start', 'now'], ['start', '--colour']]) {
      const { io, err } = captureIo();
      expect(await runCli(argv, io)).toBe(2);
      expect(err.join('')).toContain('Usage: followup-server');
    }
  });

  it('refuses a port that is not one', async () => {
    const { io, err } = captureIo();
    expect(await runCli(['start', '--port', 'http'], io)).toBe(2);
    expect(err.join('')).toContain('Not a port: http');
  });

  describe('start', () => {
    let dataDir: string;
    let schema: string | undefined;
    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'followup-cli-'));
      if (testDriver === 'postgres') {
        schema = uniqueSchemaName();
        const database = await openTestDatabase();
        await database.query(`CREATE SCHEMA ${schema}`);
        await database.close();
      }
    });
    afterAll(async () => {
      await rm(dataDir, { recursive: true, force: true });
      if (schema) {
        const database = await openTestDatabase();
        await database.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await database.close();
      }
    });

    function storageArguments(): string[] {
      if (testDriver === 'pglite') return ['--data-dir', dataDir];
      const url = new URL(testDatabaseUrl());
      url.searchParams.set('options', `-c search_path=${schema}`);
      return ['--database-url', url.toString()];
    }

    it('listens, answers, and shuts down gracefully on its signal', async () => {
      const controller = new AbortController();
      const { io, firstLine } = captureIo({}, controller.signal);
      const exit = runCli(['start', '--port', '0', '--json', ...storageArguments()], io);
      const announced = JSON.parse(await firstLine) as { url: string; driver: string };
      expect(announced.driver).toBe(testDriver);
      expect(announced.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

      const health = await fetch(`${announced.url}/healthz`);
      expect(health.status).toBe(200);
      expect(health.headers.get('x-request-id')).toMatch(/^req_/);
      const audit = await fetch(`${announced.url}/api/audit`);
      expect(audit.status).toBe(401);
      expect(await audit.json()).toMatchObject({ code: 'token_missing' });

      if (testDriver === 'pglite') {
        // The running server owns its data directory: a second process must not open it.
        const second = captureIo();
        expect(await runCli(['start', '--port', '0', '--data-dir', dataDir], second.io)).toBe(1);
        expect(second.err.join('')).toContain('data_directory_locked');
      }

      controller.abort();
      expect(await exit).toBe(0);
      await expect(fetch(`${announced.url}/healthz`)).rejects.toThrow();
      if (testDriver === 'pglite') {
        await expect(stat(join(dataDir, LOCK_FILE_NAME))).rejects.toMatchObject({ code: 'ENOENT' });
      }
    });
  });
});

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, expect } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.js';
import { runCli } from '../../src/cli/run-cli.js';
import { useCliStorage } from './cli-storage.js';

// The built command (turbo builds before it tests), run as a process of its own so that a test
// can kill it with SIGKILL and start it again on the same storage.
const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/**
 * Storage for a server that a test kills and starts again, and the two things such a test does
 * with it: run an operator command beside it (`--json`, asserting exit 0, parsed output) and
 * start `followup-server start --port 0 --json` with short delivery timeouts and retries plus
 * `startArguments`, resolving once it listens, with what it announced (its URL, and with
 * `--demo` its token). `under` runs the server under another command, which is given node and
 * its arguments (`strace … -o FILE`). Every child still running after the suite is killed. Call
 * it inside a `describe`. `migrated` starts from the run's migrated template instead of an empty
 * data directory (`useCliStorage`), for a test that is not about the cluster's creation.
 */
export function useKillableServer(
  prefix: string,
  options: {
    startArguments?: readonly string[];
    env?: Record<string, string>;
    migrated?: boolean;
  } = {},
): {
  /** The scratch data directory (PGlite). */
  dataDir(): string;
  operator(...argv: string[]): Promise<ReturnType<typeof JSON.parse>>;
  startServer(options?: {
    under?: readonly string[];
  }): Promise<{ child: ChildProcess; url: string; token?: string }>;
} {
  const { dataDir, storageArguments } = useCliStorage(prefix, {
    migrated: options.migrated ?? false,
  });
  const children: ChildProcess[] = [];

  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  });

  async function operator(...argv: string[]): Promise<ReturnType<typeof JSON.parse>> {
    const out: string[] = [];
    const io: CliIo = {
      stdout: { write: (text: string) => void out.push(text) },
      stderr: { write: () => undefined },
      env: {},
    };
    expect(await runCli([...argv, '--json', ...storageArguments()], io)).toBe(0);
    return JSON.parse(out.join(''));
  }

  async function startServer({ under = [] }: { under?: readonly string[] } = {}): Promise<{
    child: ChildProcess;
    url: string;
    token?: string;
  }> {
    const [command, ...args] = [
      ...under,
      process.execPath,
      cli,
      'start',
      '--port',
      '0',
      '--json',
      '--allow-private-endpoints',
      '--delivery-timeout',
      '1',
      '--delivery-retry-delays',
      '0.05,0.05,0.05',
      ...(options.startArguments ?? []),
      ...storageArguments(),
    ] as [string, ...string[]];
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, DATABASE_URL: '', ...options.env },
    });
    children.push(child);
    const [line] = (await once(
      createInterface({ input: child.stdout as NodeJS.ReadableStream }),
      'line',
    )) as [string];
    const { url, token } = JSON.parse(line) as { url: string; token?: string };
    return { child, url, ...(token === undefined ? {} : { token }) };
  }

  return { dataDir, operator, startServer };
}

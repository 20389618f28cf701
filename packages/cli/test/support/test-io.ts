import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliClock, CliIo } from '../../src/cli-io.js';
import { main } from '../../src/main.js';

/** A command's run: its exit code and what it wrote. */
export interface CommandRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A scratch configuration folder (XDG_CONFIG_HOME) and a way to run commands with it. */
export interface TestCli {
  /** XDG_CONFIG_HOME of every run. */
  configHome: string;
  /** Runs `followup …argv` in-process with this folder and `env` on top. */
  run(argv: readonly string[], overrides?: Partial<CliIo>): Promise<CommandRun>;
  /** Removes the folder. */
  remove(): void;
}

/** A {@link TestCli} whose runs see `env` besides XDG_CONFIG_HOME (no HOME, no real config). */
export function testCli(env: Record<string, string | undefined> = {}): TestCli {
  const configHome = mkdtempSync(join(tmpdir(), 'followup-cli-test-'));
  return {
    configHome,
    async run(argv, overrides = {}) {
      let stdout = '';
      let stderr = '';
      const code = await main(argv, {
        stdout: { write: (text: string) => (stdout += text) },
        stderr: { write: (text: string) => (stderr += text) },
        env: { XDG_CONFIG_HOME: configHome, ...env, ...overrides.env },
        readStdin: async () => undefined,
        ...overrides,
        ...(overrides.env
          ? { env: { XDG_CONFIG_HOME: configHome, ...env, ...overrides.env } }
          : {}),
      });
      return { code, stdout, stderr };
    },
    remove: () => rmSync(configHome, { recursive: true, force: true }),
  };
}

/**
 * A clock that tests move: `sleep` resolves when `advance` passes its end, or at once when its
 * signal aborts. `sleeping` tells how many waits are pending, so a test advances only once the
 * code under test waits.
 */
export interface ManualClock extends CliClock {
  advance(ms: number): void;
  readonly sleeping: number;
  /** Resolves once some code waits on this clock. */
  nextSleep(): Promise<number>;
}

/** A {@link ManualClock} starting at `start` (ms since the epoch). */
export function manualClock(start = Date.UTC(2026, 0, 15, 9, 30)): ManualClock {
  let now = start;
  const timers: { at: number; resolve: () => void }[] = [];
  const waiters: ((ms: number) => void)[] = [];
  return {
    now: () => now,
    sleep(ms, signal) {
      return new Promise<void>((resolve) => {
        if (signal?.aborted) return resolve();
        const timer = { at: now + ms, resolve };
        timers.push(timer);
        signal?.addEventListener(
          'abort',
          () => {
            timers.splice(timers.indexOf(timer), 1);
            resolve();
          },
          { once: true },
        );
        for (const waiter of waiters.splice(0)) waiter(ms);
      });
    },
    advance(ms) {
      now += ms;
      for (const timer of [...timers]) {
        if (timer.at <= now) {
          timers.splice(timers.indexOf(timer), 1);
          timer.resolve();
        }
      }
    },
    get sleeping() {
      return timers.length;
    },
    nextSleep() {
      return new Promise((resolve) => {
        waiters.push(resolve);
      });
    },
  };
}

/**
 * A clock on which every wait ends at once (on the next turn of the event loop, so that I/O
 * goes on) and moves the time forward by its length: a retry 30 s away happens now, and `now`
 * says 30 s have passed.
 */
export function steppingClock(
  start = Date.UTC(2026, 0, 15, 9, 30),
): CliClock & { waited: number[] } {
  let now = start;
  const waited: number[] = [];
  return {
    waited,
    now: () => now,
    sleep: (ms, signal) =>
      new Promise<void>((resolve) => {
        if (signal?.aborted) return resolve();
        waited.push(ms);
        now += ms;
        setImmediate(resolve);
      }),
  };
}

/** Where a command writes (`process.stdout` fits): a line at a time is enough. */
export interface TextSink {
  /** Writes `text` (whole lines, each ending with a newline). */
  write(text: string): unknown;
}

/**
 * The time of the command: now, and waits that end early when `signal` aborts (they
 * resolve then, never reject). The real one is on `Date.now` and `setTimeout`; tests pass one
 * they advance.
 */
export interface CliClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** @internal The system's clock, on `Date.now` and `setTimeout`. */
export const systemClock: CliClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    }),
};

/**
 * What {@link main} reads and writes: the real process by default, or a test's stand-ins.
 *
 * @example
 * ```ts
 * const code = await main(['trigger', '--list'], { stdout: process.stdout, stderr: process.stderr, env: {} });
 * ```
 */
export interface CliIo {
  /** Results: what a program would read (with `--json`, only JSON). */
  stdout: TextSink;
  /** Diagnostics and errors. */
  stderr: TextSink;
  /** The environment: `FOLLOWUP_BASE_URL`, `FOLLOWUP_TOKEN`, `XDG_CONFIG_HOME`, `HOME`. */
  env: Readonly<Record<string, string | undefined>>;
  /** Aborted to stop `listen` at once (the binary wires SIGINT to it). */
  signal?: AbortSignal;
  /** The clock of waits and timestamps; the system's by default. */
  clock?: CliClock;
  /** The `fetch` that forwards and checks deliveries, and that the SDK client uses. */
  fetch?: typeof fetch;
  /** Text piped to the command (`followup login` reads a token from it), or `undefined`. */
  readStdin?: () => Promise<string | undefined>;
}

import type { CliIo } from '../../src/cli/cli-io.js';
import { runCli } from '../../src/cli/run-cli.js';
import type { Database } from '../../src/storage/database.js';

/** What a CLI run wrote, in the order it wrote it. */
export interface CapturedIo {
  /** The `io` to hand to `runCli`; set `io.database` to run on a test database. */
  io: CliIo;
  /** Every chunk written to stdout. */
  out: string[];
  /** Every chunk written to stderr. */
  err: string[];
  /** Resolves with stdout as it is after its first write (`start` announces itself there). */
  firstLine: Promise<string>;
}

/**
 * An in-memory stdout and stderr for `runCli`, with the given environment and an optional signal
 * (which stops a running `start`).
 */
export function captureIo(env: CliIo['env'] = {}, signal?: AbortSignal): CapturedIo {
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

/** Runs one CLI command on `database` and resolves with its exit code and output. */
export async function runCliOn(
  database: Database,
  argv: string[],
  env: CliIo['env'] = {},
): Promise<{ code: number; out: string; err: string }> {
  const captured = captureIo(env);
  captured.io.database = database;
  const code = await runCli(argv, captured.io);
  return { code, out: captured.out.join(''), err: captured.err.join('') };
}

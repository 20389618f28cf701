import type { TextSink } from '../plugins/logging.js';
import type { Database } from '../storage/database.js';
import type { TerminalSink } from './progress-bar.js';

// Apart from run-cli.ts so that the commands it runs (start-command.ts) can take them without
// importing run-cli.ts, which imports them: a cycle.

/** What the CLI reads and writes; the real process, or a test's stand-ins. */
export interface CliIo {
  /** Where results go. */
  stdout: TextSink;
  /** Where diagnostics, errors and (on a terminal, `isTTY`) progress bars go. */
  stderr: TerminalSink;
  /**
   * The environment (`PORT`, `HOST`, `DATABASE_URL`, `FOLLOWUP_DATA_DIR`,
   * `INBOX_WEBHOOK_SECRET`, `EHR_WEBHOOK_SECRET_<KEY>`).
   */
  env: Record<string, string | undefined>;
  /** Aborted to stop a running `start` (the binary wires SIGTERM and SIGINT to it). */
  signal?: AbortSignal;
  /**
   * A migrated database to use instead of the one `--data-dir` / `--database-url` name; the CLI
   * does not close it. For embedding the CLI, and for tests.
   */
  database?: Database;
}

/** @internal The database a command runs on, and how to let go of it. */
export interface OpenedDatabase {
  database: Database;
  release(): Promise<void>;
}

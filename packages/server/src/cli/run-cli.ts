import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { FollowUpServerError } from '../errors.js';
import type { TextSink } from '../plugins/logging.js';
import type { Database } from '../storage/database.js';
import { migrate } from '../storage/migrate.js';
import { openPGliteDatabase } from '../storage/pglite-database.js';
import { openPostgresDatabase } from '../storage/postgres-database.js';
import { sendOperatorCommand } from './operator-channel.js';
import {
  type OperatorCommand,
  type OperatorOutput,
  operatorCommands,
} from './operator-commands.js';
import { createProgressBar, type TerminalSink } from './progress-bar.js';
import { startCommand } from './start-command.js';
import { type CliOptions, optionSpec, UsageError, usage } from './usage.js';

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

/** @internal The PGlite data directory the command names, or `undefined` on PostgreSQL. */
export function dataDirectoryOf(values: CliOptions, io: CliIo): string | undefined {
  if (io.database || values['database-url'] || io.env.DATABASE_URL) return undefined;
  return resolve(values['data-dir'] ?? io.env.FOLLOWUP_DATA_DIR ?? 'followup-data');
}

async function openDatabase(values: CliOptions, io: CliIo): Promise<OpenedDatabase> {
  if (io.database) return { database: io.database, release: async () => {} };
  const dataDir = dataDirectoryOf(values, io);
  const databaseUrl = values['database-url'] ?? io.env.DATABASE_URL;
  const database =
    dataDir === undefined && databaseUrl
      ? await openPostgresDatabase({ connectionString: databaseUrl })
      : await openPGliteDatabase({ dataDir: dataDir ?? 'followup-data' });
  try {
    await migrate(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  return { database, release: () => database.close() };
}

/**
 * Runs the `followup-server` command line and resolves with its exit code: 0 on success, 1 when
 * the command failed, 2 on a usage error. `start` resolves once `io.signal` aborts and the
 * server has shut down gracefully.
 *
 * @example
 * ```ts
 * const controller = new AbortController();
 * process.once('SIGTERM', () => controller.abort());
 * process.exitCode = await runCli(process.argv.slice(2), { ...process, signal: controller.signal });
 * ```
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let values: CliOptions;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      options: optionSpec,
      allowPositionals: true,
      strict: true,
    }));
  } catch (error) {
    return usageError(io, (error as Error).message);
  }
  const [command, ...rest] = positionals;
  if (values.help || command === 'help') {
    io.stdout.write(usage);
    return 0;
  }
  if (command === undefined) return usageError(io, 'A command is required.');
  try {
    if (command === 'start' && rest.length === 0) {
      return await startCommand(values, io, {
        open: () => openDatabase(values, io),
        dataDir: dataDirectoryOf(values, io),
      });
    }
    const name = [command, ...rest].join(' ');
    const operatorCommand = Object.hasOwn(operatorCommands, name)
      ? operatorCommands[name]
      : undefined;
    if (!operatorCommand) throw new UsageError(`Unknown command: ${positionals.join(' ')}`);
    const result = await runOperatorCommand(name, operatorCommand, values, io);
    io.stdout.write(values.json ? `${JSON.stringify(result.json)}\n` : result.text);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) return usageError(io, error.message);
    const code = FollowUpServerError.isInstance(error) ? error.code : 'error';
    const message = (error as Error).message;
    if (values.json) io.stderr.write(`${JSON.stringify({ error: { code, message } })}\n`);
    else io.stderr.write(`followup-server: ${message} (${code})\n`);
    return 1;
  }
}

async function runOperatorCommand(
  name: string,
  command: OperatorCommand,
  values: CliOptions,
  io: CliIo,
): Promise<OperatorOutput> {
  let opened: OpenedDatabase;
  try {
    opened = await openDatabase(values, io);
  } catch (error) {
    // A server runs on this data directory: ask it, through its operator channel.
    const dataDir = dataDirectoryOf(values, io);
    const locked = FollowUpServerError.isInstance(error) && error.code === 'data_directory_locked';
    if (!locked || dataDir === undefined) throw error;
    try {
      return await sendOperatorCommand(dataDir, name, values);
    } catch (channelError) {
      const unavailable =
        FollowUpServerError.isInstance(channelError) &&
        channelError.code === 'operator_channel_unavailable';
      throw unavailable ? error : channelError;
    }
  }
  // A progress bar on a terminal only, never with --json (nothing else on stderr then).
  const bar = createProgressBar(values.json ? { write: () => undefined } : io.stderr, name);
  try {
    return await command(values, opened.database, (done, total) => bar.update(done, total));
  } finally {
    bar.finish();
    await opened.release();
  }
}

function usageError(io: CliIo, message: string): number {
  io.stderr.write(`${message}\n\n${usage}`);
  return 2;
}

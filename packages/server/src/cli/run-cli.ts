import { parseArgs } from 'node:util';
import { FollowUpServerError } from '../errors.js';
import type { Database } from '../storage/database.js';
import { migrate } from '../storage/migrate.js';
import { openPGliteDatabase } from '../storage/pglite-database.js';
import { openPostgresDatabase } from '../storage/postgres-database.js';
import {
  BACKUP_OPTIONS,
  backupCommand,
  RESTORE_OPTIONS,
  restoreCommand,
} from './backup-commands.js';
import type { CliIo, OpenedDatabase } from './cli-io.js';
import { holdsDatabase, resolveDataDirectory } from './data-directory.js';
import { wholeNumber } from './edge-options.js';
import { sendOperatorCommand } from './operator-channel.js';
import type { OperatorCommand, OperatorOutput } from './operator-command.js';
import { operatorCommandOptions, operatorCommands } from './operator-commands.js';
import { withEnvironmentSwitches } from './option-variables.js';
import { createProgressBar } from './progress-bar.js';
import { START_OPTIONS, startCommand } from './start-command.js';
import { unsafeNoFsync } from './start-option-parsers.js';
import { hasBareTrustProxy, TRUST_PROXY_NEEDS_PROXIES } from './trust-proxy.js';
import {
  type CliOptions,
  GLOBAL_OPTIONS,
  type OptionName,
  optionSpec,
  UsageError,
  usage,
} from './usage.js';

/**
 * @internal The PGlite data directory the command names (see {@link resolveDataDirectory}), or
 * `undefined` on PostgreSQL.
 */
export function dataDirectoryOf(values: CliOptions, io: CliIo): string | undefined {
  if (io.database || values['database-url'] || io.env.DATABASE_URL) return undefined;
  return resolveDataDirectory(values['data-dir'], io.env).path;
}

/** The most PostgreSQL connections that run queries. */
const MAX_DATABASE_CONNECTIONS = 1000;

/**
 * `--database-connections` / `DATABASE_CONNECTIONS`: the PostgreSQL pool's size, or `undefined`
 * for the default. Checked on PGlite too, so that a mistake shows before it matters.
 */
function databaseConnections(
  values: CliOptions,
  env: Record<string, string | undefined>,
): number | undefined {
  return wholeNumber(
    'database-connections',
    'DATABASE_CONNECTIONS',
    values['database-connections'] ?? env.DATABASE_CONNECTIONS,
    MAX_DATABASE_CONNECTIONS,
  );
}

/**
 * Opens the command's database. `create: false` (operator commands) refuses to create an empty
 * database in the default data directory: the operator most likely meant the server's, which is
 * elsewhere, and should be told where the command looked.
 */
async function openDatabase(
  values: CliOptions,
  io: CliIo,
  { create }: { create: boolean },
): Promise<OpenedDatabase> {
  if (io.database) return { database: io.database, release: async () => {} };
  const databaseUrl = values['database-url'] ?? io.env.DATABASE_URL;
  const maxConnections = databaseConnections(values, io.env);
  let database: Database;
  if (databaseUrl) {
    database = await openPostgresDatabase({
      connectionString: databaseUrl,
      ...(maxConnections === undefined ? {} : { maxConnections }),
    });
  } else {
    const dataDir = resolveDataDirectory(values['data-dir'], io.env);
    if (!create && !dataDir.explicit && !holdsDatabase(dataDir.path)) {
      throw new FollowUpServerError({
        code: 'data_directory_missing',
        message:
          `No database in ${dataDir.path}. Start the server first (followup-server start), ` +
          'or name its data directory with --data-dir or FOLLOWUP_DATA_DIR.',
      });
    }
    database = await openPGliteDatabase({
      dataDir: dataDir.path,
      unsafeNoFsync: unsafeNoFsync(values, io.env),
    });
  }
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
  let given: Set<OptionName>;
  // It once took no value: say what it takes now, not that "an argument" is missing.
  if (hasBareTrustProxy(argv)) return usageError(io, TRUST_PROXY_NEEDS_PROXIES);
  try {
    let tokens: ReturnType<typeof parseArgs>['tokens'];
    ({ values, positionals, tokens } = parseArgs({
      args: [...argv],
      options: optionSpec,
      allowPositionals: true,
      strict: true,
      tokens: true,
    }));
    // The options typed on the command line (values also holds the booleans' defaults).
    given = new Set(
      (tokens ?? []).flatMap((token) =>
        token.kind === 'option' ? [token.name as OptionName] : [],
      ),
    );
  } catch (error) {
    // Node's own messages go on, over several lines, with advice: the first sentence says it.
    const [first = ''] = (error as Error).message.split(/\n|\. (?=[A-Z])/);
    return usageError(io, first);
  }
  const [command, ...rest] = positionals;
  values = withEnvironmentSwitches(values, io.env, { command });
  if (values.help || command === 'help') {
    io.stdout.write(usage);
    return 0;
  }
  if (command === undefined) return usageError(io, 'A command is required.');
  try {
    // Every command may open the database: a bad pool size is a usage error before any opens.
    databaseConnections(values, io.env);
    unsafeNoFsync(values, io.env);
    if (command === 'start' && rest.length === 0) {
      refuseOptionsNotTaken('start', START_OPTIONS, given);
      return await startCommand(values, io, {
        open: () => openDatabase(values, io, { create: true }),
        dataDir: dataDirectoryOf(values, io),
      });
    }
    if ((command === 'backup' || command === 'restore') && rest.length === 0) {
      refuseOptionsNotTaken(
        command,
        command === 'backup' ? BACKUP_OPTIONS : RESTORE_OPTIONS,
        given,
      );
      const result = await (command === 'backup' ? backupCommand : restoreCommand)(values, io);
      io.stdout.write(values.json ? `${JSON.stringify(result.json)}\n` : result.text);
      return 0;
    }
    // Sign-in links (users invite) point to PUBLIC_URL when --public-url is not given.
    if (values['public-url'] === undefined && io.env.PUBLIC_URL) {
      values = { ...values, 'public-url': io.env.PUBLIC_URL };
    }
    const name = [command, ...rest].join(' ');
    const operatorCommand = Object.hasOwn(operatorCommands, name)
      ? operatorCommands[name]
      : undefined;
    if (!operatorCommand) throw new UsageError(`Unknown command: ${positionals.join(' ')}`);
    refuseOptionsNotTaken(name, operatorCommandOptions[name] ?? [], given);
    await checkUsage(operatorCommand, values);
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
    opened = await openDatabase(values, io, { create: false });
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

/** What the database of a usage check throws: the command got past its checks of the options. */
const usageChecked = Symbol('usage checked');

/**
 * Runs a command's checks of its options before any database is opened: the command runs on a
 * stand-in database that stops it at its first query, so a `UsageError` it throws before that is
 * reported without opening (let alone creating or migrating) anything.
 */
async function checkUsage(command: OperatorCommand, values: CliOptions): Promise<void> {
  const stop = () => Promise.reject(usageChecked);
  const standIn = new Proxy({} as Database, {
    get: (_target, property) => (property === 'driver' ? 'pglite' : stop),
  });
  try {
    await command(values, standIn);
  } catch (error) {
    if (error instanceof UsageError) throw error;
  }
}

/**
 * Refuses an option the command does not take: every option is known to the parser (some
 * command takes it), so without this check `deliveries list --endpoint X` would list every
 * endpoint's deliveries as if the filter had been applied.
 */
function refuseOptionsNotTaken(
  command: string,
  options: readonly OptionName[],
  given: ReadonlySet<OptionName>,
): void {
  const taken = new Set([...GLOBAL_OPTIONS, ...options]);
  const refused = [...given].filter((option) => !taken.has(option));
  if (refused.length > 0) {
    const names = refused.map((option) => `--${option}`).join(', ');
    throw new UsageError(`${command} does not take ${names}`);
  }
}

/** A usage error in one line, pointing to the help (exit code 2). */
function usageError(io: CliIo, message: string): number {
  const sentence = /[.!?]$/.test(message) ? message : `${message}.`;
  io.stderr.write(`followup-server: ${sentence} Run 'followup-server --help' for usage.\n`);
  return 2;
}

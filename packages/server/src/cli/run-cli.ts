import { parseArgs } from 'node:util';
import { buildServer } from '../build-server.js';
import { FollowUpServerError } from '../errors.js';
import type { TextSink } from '../plugins/logging.js';
import type { Database } from '../storage/database.js';
import { migrate } from '../storage/migrate.js';
import { openPGliteDatabase } from '../storage/pglite-database.js';
import { openPostgresDatabase } from '../storage/postgres-database.js';

/** What the CLI reads and writes; the real process, or a test's stand-ins. */
export interface CliIo {
  /** Where results go. */
  stdout: TextSink;
  /** Where diagnostics and errors go. */
  stderr: TextSink;
  /**
   * The environment (`PORT`, `HOST`, `DATABASE_URL`, `FOLLOWUP_DATA_DIR`,
   * `INBOX_WEBHOOK_SECRET`).
   */
  env: Record<string, string | undefined>;
  /** Aborted to stop a running `start` (the binary wires SIGTERM and SIGINT to it). */
  signal?: AbortSignal;
}

const usage = `Usage: followup-server <command> [options]

Commands:
  start     Serve the API until SIGTERM or SIGINT
              --port N              port to listen on (PORT, default 3000; 0 picks a free one)
              --host HOST           address to listen on (HOST, default 127.0.0.1)
            The inbox webhook's secret comes from INBOX_WEBHOOK_SECRET.

Options of every command:
  --data-dir DIR        embedded PGlite database directory (FOLLOWUP_DATA_DIR, default ./followup-data)
  --database-url URL    PostgreSQL instead of PGlite (DATABASE_URL)
  --json                machine-readable output
  --help                this text
`;

const optionSpec = {
  port: { type: 'string' },
  host: { type: 'string' },
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
} as const;

type Values = ReturnType<
  typeof parseArgs<{ options: typeof optionSpec; allowPositionals: true }>
>['values'];

class UsageError extends Error {}

/** @internal Opens the database the options and environment name, and migrates it. */
export async function openConfiguredDatabase(values: Values, env: CliIo['env']): Promise<Database> {
  const databaseUrl = values['database-url'] ?? env.DATABASE_URL;
  const database = databaseUrl
    ? await openPostgresDatabase({ connectionString: databaseUrl })
    : await openPGliteDatabase({
        dataDir: values['data-dir'] ?? env.FOLLOWUP_DATA_DIR ?? 'followup-data',
      });
  try {
    await migrate(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535) throw new UsageError(`Not a port: ${text}`);
  return port;
}

async function start(values: Values, io: CliIo): Promise<number> {
  const port = parsePort(values.port ?? io.env.PORT ?? '3000');
  const host = values.host ?? io.env.HOST ?? '127.0.0.1';
  const database = await openConfiguredDatabase(values, io.env);
  const inboxWebhookSecret = io.env.INBOX_WEBHOOK_SECRET;
  const app = buildServer({
    database,
    logger: { level: 'info', stream: io.stderr },
    ...(inboxWebhookSecret ? { inboxWebhookSecret } : {}),
  });
  try {
    const address = await app.listen({ port, host });
    const url = new URL(address);
    if (values.json) {
      io.stdout.write(`${JSON.stringify({ url: url.origin, driver: database.driver })}\n`);
    } else {
      io.stdout.write(`FollowUp server listening on ${url.origin} (${database.driver})\n`);
    }
    await new Promise<void>((resolve) => {
      if (!io.signal || io.signal.aborted) return resolve();
      io.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  } finally {
    // Graceful: stop accepting, let in-flight requests finish, then close the storage.
    await app.close();
    await database.close();
  }
  return 0;
}

/**
 * Runs the `followup-server` command line and resolves with its exit code. `start` resolves once
 * `io.signal` aborts and the server has shut down gracefully.
 *
 * @example
 * ```ts
 * const controller = new AbortController();
 * process.once('SIGTERM', () => controller.abort());
 * process.exitCode = await runCli(process.argv.slice(2), { ...process, signal: controller.signal });
 * ```
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof optionSpec; allowPositionals: true }>>;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: optionSpec,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || command === undefined || command === 'help') {
    (command === undefined && !values.help ? io.stderr : io.stdout).write(usage);
    return command === undefined && !values.help ? 2 : 0;
  }
  try {
    if (command === 'start' && rest.length === 0) return await start(values, io);
    throw new UsageError(`Unknown command: ${positionals.join(' ')}`);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`${error.message}\n\n${usage}`);
      return 2;
    }
    const message = FollowUpServerError.isInstance(error)
      ? `${error.message} (${error.code})`
      : (error as Error).message;
    if (values.json) {
      const code = FollowUpServerError.isInstance(error) ? error.code : 'error';
      io.stderr.write(`${JSON.stringify({ error: { code, message } })}\n`);
    } else {
      io.stderr.write(`followup-server: ${message}\n`);
    }
    return 1;
  }
}

import { randomBytes } from 'node:crypto';
import { chmod, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { secretsEqual } from '@followup/webhooks';
import { createBackup } from '../backup/create-backup.js';
import { systemClock } from '../clock.js';
import { FollowUpServerError } from '../errors.js';
import type { Database } from '../storage/database.js';
import type { OperatorOutput } from './operator-command.js';
import { operatorCommands } from './operator-commands.js';
import { type CliOptions, optionSpec, UsageError } from './usage.js';

/**
 * The file, inside a PGlite data directory, that tells operator commands where the running
 * server's operator channel listens and with which key. Owner-only (0600).
 */
export const OPERATOR_CHANNEL_FILE = 'operator-channel.json';

/**
 * The Unix socket, inside a PGlite data directory, the operator channel listens on. Owner-only
 * (0600) in an owner-only directory: only the server's own user can listen there or connect, so
 * the CLI knows it talks to the server, and the server that it talks to its operator.
 */
export const OPERATOR_SOCKET_FILE = 'operator.sock';

/**
 * @internal The operator channel's files in a data directory: they belong to the running
 * process, so a backup leaves them out (the key file is a secret of that process only).
 */
export const OPERATOR_CHANNEL_FILES: readonly string[] = [
  OPERATOR_CHANNEL_FILE,
  OPERATOR_SOCKET_FILE,
];

/** The channel's path that answers a backup of the database as a `.tar.gz` stream. */
const BACKUP_PATH = '/backup';

// Linux and macOS take socket paths of at most 107 and 103 bytes.
const maxSocketPathBytes = 100;

const maxRequestBytes = 64 * 1024;

interface ChannelFile {
  /** The Unix socket's path, or, for a data directory whose path is too long for one, a loopback URL. */
  socket?: string;
  url?: string;
  key: string;
  pid: number;
}

/** @internal A running operator channel. */
export interface OperatorChannel {
  /** Stops listening and removes the channel file. */
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxRequestBytes) throw new UsageError('The operator request is too large.');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

// Only the options the CLI knows, with the types it gives them.
function sanitizeValues(raw: unknown): CliOptions {
  const values: Record<string, string | boolean> = {};
  if (typeof raw !== 'object' || raw === null) return values as CliOptions;
  for (const [name, spec] of Object.entries(optionSpec)) {
    const value = (raw as Record<string, unknown>)[name];
    if (typeof value === spec.type) values[name] = value as string | boolean;
  }
  return values as CliOptions;
}

/**
 * @internal Opens the operator channel of a server running on a PGlite data directory: an HTTP
 * listener on a Unix socket in the data directory (owner-only; on loopback only when the
 * directory's path is too long for a socket), answering operator commands (`accounts …`, `tokens …`,
 * `receipts …`) with the server's own database, for a key written with the address to
 * {@link OPERATOR_CHANNEL_FILE} (mode 0600) in the data directory. The data directory belongs to
 * the running process, so this is how the CLI reaches it.
 */
export async function openOperatorChannel(options: {
  dataDir: string;
  database: Database;
  /** Told after every command that succeeded (a retried delivery wakes the worker). */
  onCommand?: () => void;
  /** The server's public URL: sign-in links of `users invite` use it unless the CLI names one. */
  publicUrl?: string;
}): Promise<OperatorChannel> {
  const key = randomBytes(32).toString('base64url');
  const server = createServer((request, response) => {
    const answer = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    const authorization = request.headers.authorization ?? '';
    if (request.method !== 'POST' || !secretsEqual(authorization, `Bearer ${key}`)) {
      answer(401, { ok: false, error: { code: 'operator_key_invalid', message: 'Wrong key.' } });
      return;
    }
    if (request.url === BACKUP_PATH) {
      // Copied by this process, which owns the database, while it goes on serving.
      request.resume();
      createBackup({
        database: options.database,
        dataDir: options.dataDir,
        excludedFiles: OPERATOR_CHANNEL_FILES,
        clock: systemClock,
      }).then(
        ({ archive, manifest }) => {
          response.writeHead(200, {
            'content-type': 'application/gzip',
            'x-followup-schema-version': String(manifest.schemaVersion),
          });
          // A failure half-way cuts the answer short: the CLI keeps nothing of it.
          pipeline(archive, response).catch(() => response.destroy());
        },
        (error: unknown) => {
          const code = FollowUpServerError.isInstance(error) ? error.code : 'error';
          answer(200, { ok: false, error: { code, message: (error as Error).message } });
        },
      );
      return;
    }
    readBody(request)
      .then(async (text) => {
        const { command, values } = JSON.parse(text) as { command?: unknown; values?: unknown };
        if (typeof command !== 'string' || !Object.hasOwn(operatorCommands, command)) {
          throw new UsageError(`Unknown command: ${String(command)}`);
        }
        const run = operatorCommands[command];
        if (!run) throw new UsageError(`Unknown command: ${command}`);
        const sanitized = sanitizeValues(values);
        if (sanitized['public-url'] === undefined && options.publicUrl) {
          sanitized['public-url'] = options.publicUrl;
        }
        const output = await run(sanitized, options.database);
        options.onCommand?.();
        answer(200, { ok: true, output });
      })
      .catch((error: unknown) => {
        const code =
          error instanceof UsageError
            ? 'usage'
            : FollowUpServerError.isInstance(error)
              ? error.code
              : 'error';
        answer(200, { ok: false, error: { code, message: (error as Error).message } });
      });
  });
  const socket = join(options.dataDir, OPERATOR_SOCKET_FILE);
  const useSocket = Buffer.byteLength(socket) <= maxSocketPathBytes && process.platform !== 'win32';
  if (useSocket) {
    // A socket left by a process that died (the data directory's lock is ours now).
    await unlink(socket).catch(() => {});
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if (useSocket) server.listen(socket, () => resolve());
    else server.listen(0, '127.0.0.1', () => resolve());
  });
  if (useSocket) await chmod(socket, 0o600);
  const path = join(options.dataDir, OPERATOR_CHANNEL_FILE);
  const file: ChannelFile = useSocket
    ? { socket, key, pid: process.pid }
    : {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        key,
        pid: process.pid,
      };
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(file), { mode: 0o600 });
  await rename(temporary, path);
  return {
    async close() {
      await unlink(path).catch(() => {});
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (useSocket) await unlink(socket).catch(() => {});
    },
  };
}

/** The running server's channel file; `operator_channel_unavailable` when there is none. */
async function readChannelFile(dataDir: string): Promise<ChannelFile> {
  try {
    return JSON.parse(await readFile(join(dataDir, OPERATOR_CHANNEL_FILE), 'utf8')) as ChannelFile;
  } catch (error) {
    throw new FollowUpServerError({
      code: 'operator_channel_unavailable',
      message: `The process holding ${dataDir} offers no operator channel.`,
      cause: error,
    });
  }
}

/**
 * @internal Sends an operator command to the server running on `dataDir`. Throws
 * `operator_channel_unavailable` when no running server announced a channel.
 */
export async function sendOperatorCommand(
  dataDir: string,
  command: string,
  values: CliOptions,
): Promise<OperatorOutput> {
  const file = await readChannelFile(dataDir);
  let text: string;
  try {
    text = await readAll(await post(file, '/', JSON.stringify({ command, values })));
  } catch (error) {
    throw new FollowUpServerError({
      code: 'operator_channel_unavailable',
      message: `The server running on ${dataDir} does not answer on its operator channel.`,
      cause: error,
    });
  }
  const body = JSON.parse(text) as
    | { ok: true; output: OperatorOutput }
    | { ok: false; error: { code: string; message: string } };
  if (body.ok) return body.output;
  if (body.error.code === 'usage') throw new UsageError(body.error.message);
  throw new FollowUpServerError({ code: body.error.code, message: body.error.message });
}

/**
 * @internal Asks the server running on `dataDir` for a backup of its database, and resolves
 * with the `.tar.gz` as it streams in. Throws `operator_channel_unavailable` when no running
 * server announced a channel, and the server's error when it could not make one.
 */
export async function requestOperatorBackup(dataDir: string): Promise<IncomingMessage> {
  const file = await readChannelFile(dataDir);
  let response: IncomingMessage;
  try {
    response = await post(file, BACKUP_PATH, '');
  } catch (error) {
    throw new FollowUpServerError({
      code: 'operator_channel_unavailable',
      message: `The server running on ${dataDir} does not answer on its operator channel.`,
      cause: error,
    });
  }
  if (response.headers['content-type'] === 'application/gzip') return response;
  const body = JSON.parse(await readAll(response)) as { error?: { code: string; message: string } };
  throw new FollowUpServerError({
    code: body.error?.code ?? 'error',
    message: body.error?.message ?? 'The server made no backup.',
  });
}

function readAll(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
  });
}

/** Posts to the channel, over its Unix socket (or loopback URL), and resolves with the answer. */
function post(file: ChannelFile, path: string, body: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const target = file.socket
      ? { socketPath: file.socket, path }
      : (() => {
          const url = new URL(String(file.url));
          return { host: url.hostname, port: url.port, path };
        })();
    const request = httpRequest(
      {
        ...target,
        method: 'POST',
        headers: { authorization: `Bearer ${file.key}`, 'content-type': 'application/json' },
      },
      resolve,
    );
    request.on('error', reject);
    request.end(body);
  });
}

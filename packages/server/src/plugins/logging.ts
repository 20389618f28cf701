import type { FastifyInstance, FastifyRequest } from 'fastify';
import { redactHeaders, secretHeaderNames } from '../secret-headers.js';
import { redactSignInLink } from '../web/redact-sign-in-link.js';

/** Something text is written to, such as `process.stdout` or a test's collector. */
export interface TextSink {
  /** Writes one chunk of text (for the logger, one JSON line). */
  write(text: string): unknown;
}

/** Where and how much the server logs (pino, one JSON object a line). */
export interface LoggingOptions {
  /** The least severe level written; defaults to `info`. */
  level?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Where lines go; defaults to standard output. Tests pass a collector. */
  stream?: TextSink;
}

/**
 * @internal The pino options of the server's logger. Requests are logged with their method,
 * path, headers (every one of `secretHeaders` redacted, see {@link secretHeaderNames}) and remote address; never a body, and never a query
 * string (it may carry a cursor, which is fine, but nothing requires it in logs).
 */
export function loggerOptions(
  options: LoggingOptions,
  secretHeaders: readonly string[] = secretHeaderNames(),
) {
  const secret = new Set(secretHeaders);
  return {
    level: options.level ?? 'info',
    ...(options.stream ? { stream: options.stream } : {}),
    // Runs on every line before the serializers, so that every error logged under `err`, by
    // our code or by Fastify's, passes through loggableError, and headers a handler logs itself
    // (`{ headers: request.headers }`) are redacted as the request's own are by the `req`
    // serializer below. Two property reads a line, where pino's `redact` paths cost about 5 µs
    // a line (measured with this server's request line).
    formatters: {
      log(object: Record<string, unknown>) {
        let line = object;
        if (object.err !== undefined) line = { ...line, err: loggableError(object.err) };
        const headers = object.headers;
        if (typeof headers === 'object' && headers !== null && !Array.isArray(headers)) {
          line = {
            ...line,
            headers: redactHeaders(
              headers as Record<string, string | string[] | undefined>,
              secret,
            ),
          };
        }
        return line;
      },
    },
    serializers: {
      req(request: FastifyRequest) {
        const headers = redactHeaders(request.headers, secret);
        // A sign-in link's token is in its path, and in the Referer of what its page loads.
        if (typeof headers.referer === 'string')
          headers.referer = redactSignInLink(headers.referer);
        return {
          method: request.method,
          url: redactSignInLink(request.url.split('?')[0] ?? request.url),
          headers,
          remoteAddress: request.ip,
        };
      },
    },
  };
}

const SQLSTATE = /^[0-9A-Z]{5}$/;

/** @internal A PostgreSQL error as logged: see {@link loggableError}. */
export class RedactedDatabaseError extends Error {
  override name = 'RedactedDatabaseError';
}
const NAMED_FIELDS = ['constraint', 'table', 'column', 'schema', 'dataType', 'routine'] as const;

/**
 * @internal What a failure is logged as (every `err` of every log line goes through it; see
 * {@link loggerOptions}). A PostgreSQL error (from pg or PGlite) keeps its
 * SQLSTATE, its severity, the names it points at (constraint, table, column, routine) and its
 * stack, but not its message, detail, hint or context: those can quote the values of a row (a
 * contact's e-mail, say), and the log is no place for them. Any other error is logged as it is.
 */
export function loggableError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const fields = error as Error & Record<string, unknown>;
  const code = fields.code;
  if (typeof code !== 'string' || !SQLSTATE.test(code) || typeof fields.severity !== 'string') {
    return error;
  }
  const constraint = typeof fields.constraint === 'string' ? ` on ${fields.constraint}` : '';
  const safe = new RedactedDatabaseError(
    `PostgreSQL error ${code}${constraint} (its message and detail are not logged: they can quote stored values)`,
  ) as RedactedDatabaseError & Record<string, unknown>;
  safe.code = code;
  safe.severity = fields.severity;
  for (const name of NAMED_FIELDS) {
    if (typeof fields[name] === 'string') safe[name] = fields[name];
  }
  // The stack's first line repeats the message; keep only the frames.
  const frames = typeof error.stack === 'string' ? error.stack.indexOf('\n    at ') : -1;
  safe.stack = `RedactedDatabaseError: ${safe.message}${frames === -1 ? '' : (error.stack as string).slice(frames)}`;
  return safe;
}

/** The most characters of `X-FollowUp-Client` the request log line's `client` field keeps. */
export const MAX_LOGGED_CLIENT_LENGTH = 200;

const UNPRINTABLE = /[^\x20-\x7e]/g;

/**
 * @internal The `client` field of the request log line: the `X-FollowUp-Client` header that the
 * SDK sends (`@followup/sdk/<version> <runtime>/<version>`), cut to
 * {@link MAX_LOGGED_CLIENT_LENGTH} characters, with anything but printable ASCII (control
 * characters, escape sequences, non-ASCII bytes) replaced by `?`, so that any caller's value is
 * safe to show in a terminal and to group by. `undefined` when absent or empty.
 */
export function loggableClient(value: string | string[] | undefined): string | undefined {
  // Node joins a repeated header with ", "; an array only comes from a set-cookie-like header.
  const text = Array.isArray(value) ? value.join(', ') : value;
  if (text === undefined || text === '') return undefined;
  return text.slice(0, MAX_LOGGED_CLIENT_LENGTH).replace(UNPRINTABLE, '?');
}

/**
 * @internal One log line per request at `info`, written when it was answered: the request
 * (method, path, headers with credentials redacted, remote address), its status, how long it
 * took (ms) and its id, and, when the caller sent `X-FollowUp-Client`, which SDK and runtime it
 * is as `client` (see {@link loggableClient}), in place of Fastify's two lines (one on arrival,
 * one on completion).
 */
export function installRequestLogging(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    // Below info, pino returns at once: no serializer runs.
    const client = loggableClient(request.headers['x-followup-client']);
    request.log.info(
      client === undefined
        ? { req: request, res: reply, responseTime: reply.elapsedTime }
        : { req: request, res: reply, responseTime: reply.elapsedTime, client },
      'request completed',
    );
    done();
  });
}

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { redactHeaders, secretHeaderNames } from '../secret-headers.js';
import { redactSignInLink } from '../web/redact-sign-in-link.js';
import { prettyLogStream } from './pretty-log-stream.js';
import { answeredProblemCode } from './problem.js';
import { UNMATCHED_ROUTE } from './request-metrics.js';

/** Something text is written to, such as `process.stdout` or a test's collector. */
export interface TextSink {
  /** Writes one chunk of text (for the logger, one JSON line). */
  write(text: string): unknown;
}

/** The levels of the server's logger, most severe first; `silent` writes nothing. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** A level of the server's logger: see {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * How log lines are written: `json` (one JSON object a line, for log collectors) or `pretty`
 * (one line of text a request, through pino-pretty, for a person at a terminal).
 */
export const LOG_FORMATS = ['json', 'pretty'] as const;

/** A format of the server's log lines: see {@link LOG_FORMATS}. */
export type LogFormat = (typeof LOG_FORMATS)[number];

// pino's numbers for its levels: silent is above every one; an unknown level counts as info.
const LEVEL_VALUES: Readonly<Record<string, number>> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Number.POSITIVE_INFINITY,
};
const levelValue = (level: string): number => LEVEL_VALUES[level] ?? 30;

/** Whether `logger` writes lines of `level` (Fastify's logger type leaves out pino's own check). */
function writesAt(logger: { level: string }, level: LogLevel): boolean {
  return levelValue(logger.level) <= levelValue(level);
}

/**
 * Where and how much the server logs (pino). At `info`, one line per request, written when it is
 * answered; its headers only at `debug` and `trace`, credentials redacted.
 *
 * @example
 * ```ts
 * const app = buildServer({ database, logger: { level: 'warn', format: 'pretty', stream: process.stderr } });
 * ```
 */
export interface LoggingOptions {
  /** The least severe level written; defaults to `info`. */
  level?: LogLevel;
  /**
   * `json` (the default) or `pretty`: pino-pretty's format, formatted in this process as each line
   * is written (no worker thread), and coloured when the stream is a terminal (`isTTY`).
   */
  format?: LogFormat;
  /** Where lines go; defaults to standard output. Tests pass a collector. */
  stream?: TextSink & {
    /** `true` when the stream is a terminal: `pretty` lines are coloured there. */
    isTTY?: boolean;
  };
}

/**
 * @internal The pino options of the server's logger. Requests are logged with their method, path,
 * route pattern and remote address, and, at `debug` and below, their headers (every one of
 * `secretHeaders` redacted, see {@link secretHeaderNames}); never a body, and never a query
 * string (a list's filters can name a person, and nothing requires them in logs).
 */
export function loggerOptions(
  options: LoggingOptions,
  secretHeaders: readonly string[] = secretHeaderNames(),
) {
  const secret = new Set(secretHeaders);
  const stream =
    options.format === 'pretty'
      ? prettyLogStream(options.stream ?? process.stdout)
      : options.stream;
  return {
    level: options.level ?? 'info',
    ...(stream ? { stream } : {}),
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
        const logged = {
          method: request.method,
          // A sign-in link's token is in its path, and in the Referer of what its page loads.
          url: redactSignInLink(request.url.split('?')[0] ?? request.url),
          route: request.is404 ? UNMATCHED_ROUTE : (request.routeOptions.url ?? UNMATCHED_ROUTE),
          remoteAddress: request.ip,
        };
        // Headers are for debugging: at info they would be most of every line.
        if (!writesAt(request.log, 'debug')) return logged;
        const headers = redactHeaders(request.headers, secret);
        if (typeof headers.referer === 'string')
          headers.referer = redactSignInLink(headers.referer);
        return { ...logged, headers };
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
 * @internal Who made the request, as the request line names them: the token's service account
 * (`sa_…`) or the session's user (`usr_…`), never an e-mail address; `undefined` when the request
 * was not authenticated (a public route, or refused before its credentials were checked).
 */
export function loggableActor(request: FastifyRequest): string | undefined {
  return request.principal?.actor.id ?? request.webSession?.user.id ?? undefined;
}

/**
 * @internal One log line per request at `info`, written when it was answered, in place of
 * Fastify's two (one on arrival, one on completion): its id (`requestId`), the request (method,
 * path, route pattern, remote address; headers at `debug`), its status (`res.statusCode`), how
 * long it took in milliseconds (`responseTime`), who made it (`actor`, see
 * {@link loggableActor}), the problem code of an error answer (`code`), and, when the caller sent
 * `X-FollowUp-Client`, which SDK and runtime it is (`client`, see {@link loggableClient}).
 */
export function installRequestLogging(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    // Below info nothing is built: at warn, a busy server pays one level check a request.
    if (writesAt(request.log, 'info')) {
      const line: Record<string, unknown> = {
        req: request,
        res: reply,
        responseTime: reply.elapsedTime,
      };
      const actor = loggableActor(request);
      if (actor !== undefined) line.actor = actor;
      const code = answeredProblemCode(request);
      if (code !== undefined) line.code = code;
      const client = loggableClient(request.headers['x-followup-client']);
      if (client !== undefined) line.client = client;
      request.log.info(line, 'request completed');
    }
    done();
  });
}

import type { FastifyRequest } from 'fastify';

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
 * @internal Headers whose values are credentials or signatures: always replaced by
 * `[redacted]` in logs, whoever logs the request.
 */
export const redactedHeaders = [
  'authorization',
  'cookie',
  'set-cookie',
  'proxy-authorization',
  'x-service-webhook-secret',
  'x-service-signature',
  'x-hub-signature',
  'x-hub-signature-256',
  'x-akute-signature',
  'x-metriport-signature',
];

/**
 * @internal The pino options of the server's logger. Requests are logged with their method,
 * path, headers (credentials redacted) and remote address; never a body, and never a query
 * string (it may carry a cursor, which is fine, but nothing requires it in logs).
 */
export function loggerOptions(options: LoggingOptions) {
  return {
    level: options.level ?? 'info',
    ...(options.stream ? { stream: options.stream } : {}),
    redact: {
      paths: redactedHeaders.flatMap((name) => [`req.headers["${name}"]`, `headers["${name}"]`]),
      censor: '[redacted]',
    },
    serializers: {
      req(request: FastifyRequest) {
        return {
          method: request.method,
          url: request.url.split('?')[0] ?? request.url,
          headers: request.headers,
          remoteAddress: request.ip,
        };
      },
    },
  };
}

import { prettyFactory } from 'pino-pretty';

/**
 * @internal What the pretty stream writes to, and what it is: `logging.ts`'s `TextSink`, written
 * out here because `logging.ts` imports this file.
 */
export interface LineSink {
  /** Writes one chunk of text. */
  write(text: string): unknown;
  /** `true` on a terminal: the lines are coloured. */
  isTTY?: boolean;
}

/**
 * A request line as a person reads it: `GET /api/contacts/con_… 200 3.1 ms` as its message, then
 * what else it carries (request id, route pattern, actor, client, code, headers at debug). Every
 * other line is left as pino wrote it.
 */
function readableLine(line: Record<string, unknown>): Record<string, unknown> {
  const { req, res, responseTime, ...rest } = line;
  if (
    line.msg !== 'request completed' ||
    typeof req !== 'object' ||
    req === null ||
    typeof res !== 'object' ||
    res === null ||
    typeof responseTime !== 'number'
  ) {
    return line;
  }
  const { method, url, ...request } = req as Record<string, unknown>;
  const status = (res as { statusCode?: unknown }).statusCode;
  return {
    ...rest,
    ...request,
    msg: `${String(method)} ${String(url)} ${String(status)} ${responseTime.toFixed(1)} ms`,
  };
}

/**
 * @internal A stream for pino that writes pino-pretty's format to `sink`: each JSON line is
 * formatted in this process as it is written (pino-pretty's `prettyFactory`, not its transport,
 * which would run in a worker thread where a test cannot capture it and a crash can lose the last
 * lines). One line of text a log line: the time of day, the level, the message, and the rest of
 * the line's fields as compact JSON; errors keep their stack on the lines below. Coloured when
 * `sink` is a terminal.
 */
export function prettyLogStream(sink: LineSink): LineSink {
  const prettify = prettyFactory({
    colorize: sink.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    singleLine: true,
  });
  return {
    write(text: string) {
      let line: unknown;
      try {
        line = JSON.parse(text);
      } catch {
        // Not a line of pino's: written as it came.
        return sink.write(text);
      }
      if (typeof line !== 'object' || line === null || Array.isArray(line)) {
        return sink.write(text);
      }
      return sink.write(prettify(readableLine(line as Record<string, unknown>)));
    },
  };
}

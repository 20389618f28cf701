import {
  LOG_FORMATS,
  LOG_LEVELS,
  type LogFormat,
  type LoggingOptions,
  type LogLevel,
} from '../plugins/logging.js';
import type { TerminalSink } from './progress-bar.js';
import { type CliOptions, UsageError } from './usage.js';

/**
 * @internal One of `choices`, from a flag's or its variable's text, case and surrounding spaces
 * aside; anything else is a usage error that names the flag, its variable and the choices.
 */
export function parseChoice<Choice extends string>(
  text: string,
  choices: readonly Choice[],
  { flag, variable }: { flag: string; variable: string },
): Choice {
  const wanted = text.trim().toLowerCase();
  const choice = choices.find((candidate) => candidate === wanted);
  if (choice === undefined) {
    throw new UsageError(`--${flag} (${variable}) is one of ${choices.join(', ')}.`);
  }
  return choice;
}

/**
 * @internal `--log-level` / `LOG_LEVEL` (default `info`) and `--log-format` / `LOG_FORMAT`
 * (default `pretty` when standard error is a terminal, where a person reads it, else `json`, for
 * a collector): how `start` logs, on standard error. An empty variable is unset, as a compose file
 * writes it.
 */
export function logOptions(
  values: Pick<CliOptions, 'log-level' | 'log-format'>,
  env: Record<string, string | undefined>,
  stderr: TerminalSink,
): Required<LoggingOptions> {
  const levelText = values['log-level'] ?? (env.LOG_LEVEL || undefined);
  const formatText = values['log-format'] ?? (env.LOG_FORMAT || undefined);
  const level: LogLevel =
    levelText === undefined
      ? 'info'
      : parseChoice(levelText, LOG_LEVELS, { flag: 'log-level', variable: 'LOG_LEVEL' });
  const format: LogFormat =
    formatText === undefined
      ? stderr.isTTY === true
        ? 'pretty'
        : 'json'
      : parseChoice(formatText, LOG_FORMATS, { flag: 'log-format', variable: 'LOG_FORMAT' });
  return { level, format, stream: stderr };
}

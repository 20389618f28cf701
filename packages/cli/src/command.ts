import { type ParseArgsConfig, parseArgs } from 'node:util';
import { usageError } from './cli-error.js';
import type { CliIo } from './cli-io.js';

/** @internal The options of a command, in `parseArgs`'s shape. */
export type CommandOptions = NonNullable<ParseArgsConfig['options']>;

/** @internal What a command line gave, as `parseArgs` reads it. */
export interface ParsedCommandLine {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** @internal One command of `followup`. */
export interface Command {
  /** `listen`, `trigger`… */
  readonly name: string;
  /** One line for `followup --help`. */
  readonly summary: string;
  /** The whole `--help` text. */
  readonly help: string;
  /** Its options (`--help` is added to every command). */
  readonly options: CommandOptions;
  /** The most positional arguments it takes. */
  readonly maxPositionals: number;
  /** Runs it; the exit code (0 ok, 1 a check failed). */
  run(line: ParsedCommandLine, io: CliIo): Promise<number>;
}

/**
 * @internal Reads a command's arguments with `node:util`'s `parseArgs`, strictly: an unknown
 * option, an option without its value, a value given to a flag or a positional argument too many
 * is a usage error that says which.
 */
export function parseCommandLine(command: Command, argv: readonly string[]): ParsedCommandLine {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      // Counted below: parseArgs's own refusal repeats the argument, which may be a token.
      allowPositionals: true,
    });
  } catch (error) {
    throw usageError(parseArgsMessage(error));
  }
  if (parsed.positionals.length > command.maxPositionals) {
    // Not echoed: a token pasted in the wrong place must not land in a terminal's scrollback.
    throw usageError(
      `followup ${command.name} takes at most ${command.maxPositionals} argument(s); got ${parsed.positionals.length}.`,
    );
  }
  return {
    values: parsed.values as Record<string, string | boolean | undefined>,
    positionals: parsed.positionals,
  };
}

/**
 * parseArgs's message, without any value from the command line: its message for an unknown
 * option repeats the whole argument (`'-- "--tokne=hns_…"'`), which may hold a token.
 */
function parseArgsMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if ((error as { code?: unknown }).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return message;
  const name = /^Unknown option '(-{1,2}[A-Za-z0-9-]{1,40})[=']/.exec(message)?.[1];
  return name === undefined ? 'Unknown option.' : `Unknown option '${name}'.`;
}

/** @internal A word of the command line that may be echoed: a command or kind name, never a token. */
export function echoable(word: string): string {
  return /^[a-z][a-z.-]{0,59}$/.test(word) ? JSON.stringify(word) : 'given';
}

/** @internal A string option's value, or `undefined`. */
export function stringOption(line: ParsedCommandLine, name: string): string | undefined {
  const value = line.values[name];
  return typeof value === 'string' ? value : undefined;
}

/** @internal Whether a flag was given. */
export function flagOption(line: ParsedCommandLine, name: string): boolean {
  return line.values[name] === true;
}

import { FollowUpError } from '@followup/sdk';
import { FollowUpCliError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { type Command, echoable, parseCommandLine } from './command.js';
import { listenCommand } from './listen-command.js';
import { loginCommand, logoutCommand } from './login-command.js';
import { processIo } from './process-io.js';
import { triggerCommand } from './trigger-command.js';
import { verifyReceiverCommand } from './verify-receiver-command.js';

const COMMANDS: readonly Command[] = [
  listenCommand,
  triggerCommand,
  verifyReceiverCommand,
  loginCommand,
  logoutCommand,
];

/** Exit code of a command that did its work. */
export const EXIT_OK = 0;
/** Exit code of a failure: a check that failed, a server that refused, a receiver unreachable. */
export const EXIT_FAILED = 1;
/** Exit code of a command line the command does not accept. */
export const EXIT_USAGE = 2;

const HELP = `Usage: followup <command> [options]

Commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(17)}${command.summary}`).join('\n')}

Run followup <command> --help for a command's options. Exit codes: 0 ok, 1 a check or the work
failed, 2 a usage error.`;

/**
 * Runs the `followup` command with `argv` (the arguments after the command's name) and returns
 * its exit code: 0 ok, 1 a check or the work failed, 2 a usage error. Without `io`, on the real
 * process (its standard streams, environment, and SIGINT for `listen`).
 *
 * @example
 * ```ts
 * import { main } from '@followup/cli';
 *
 * process.exitCode = await main(['trigger', '--list']);
 * ```
 */
export async function main(argv: readonly string[], io?: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  const command = COMMANDS.find((candidate) => candidate.name === name);
  const cli = io ?? processIo({ interruptible: command?.name === 'listen' });
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    cli.stdout.write(`${HELP}\n`);
    return name === undefined ? EXIT_USAGE : EXIT_OK;
  }
  if (command === undefined) {
    cli.stderr.write(`followup: unknown command ${echoable(name)}.\n\n${HELP}\n`);
    return EXIT_USAGE;
  }
  try {
    const line = parseCommandLine(command, rest);
    if (line.values.help === true) {
      cli.stdout.write(`${command.help}\n`);
      return EXIT_OK;
    }
    return await command.run(line, cli);
  } catch (error) {
    return reportError(command, error, cli);
  }
}

function reportError(command: Command, error: unknown, io: CliIo): number {
  if (FollowUpCliError.isInstance(error) && error.code === 'usage') {
    io.stderr.write(
      `followup ${command.name}: ${error.message}\nRun followup ${command.name} --help for its options.\n`,
    );
    return EXIT_USAGE;
  }
  if (FollowUpCliError.isInstance(error) || FollowUpError.isInstance(error)) {
    // Both kinds of message name no token, secret or body (their packages promise it).
    io.stderr.write(`followup ${command.name}: ${error.message}\n`);
    return EXIT_FAILED;
  }
  io.stderr.write(
    `followup ${command.name}: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}\n`,
  );
  return EXIT_FAILED;
}

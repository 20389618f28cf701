/**
 * `@followup/cli`: the `followup` command (`listen`, `trigger`, `verify-receiver`, `login`,
 * `logout`) and, as a library, the checks `followup verify-receiver` runs against a webhook
 * receiver.
 *
 * @packageDocumentation
 */

export {
  FollowUpCliError,
  type FollowUpCliErrorOptions,
} from './cli-error.js';
export { EXIT_FAILED, EXIT_OK, EXIT_USAGE, main } from './main.js';

// Deliberately not exported: the commands themselves, their argument parsing and the
// configuration files (src/*-command.ts, config-file.ts): they are reached through main() and
// the followup binary, and their shape may change in any release.

/**
 * `@followup/cli`: the `followup` command (`listen`, `trigger`, `verify-receiver`, `login`,
 * `logout`) and, as a library, {@link verifyReceiver}: the checks `followup verify-receiver`
 * runs against a webhook receiver, for a test suite or a CI job.
 *
 * @packageDocumentation
 */

export {
  FollowUpCliError,
  type FollowUpCliErrorOptions,
} from './cli-error.js';
export type { CliClock, CliIo, TextSink } from './cli-io.js';
export { EXIT_FAILED, EXIT_OK, EXIT_USAGE, main } from './main.js';
export type {
  ReceiverCheck,
  ReceiverCheckStatus,
  ReceiverReport,
} from './receiver-report.js';
export { type VerifyReceiverOptions, verifyReceiver } from './verify-receiver.js';

// Deliberately not exported: the commands themselves, their argument parsing, the checks one
// by one and the configuration files (src/*-command.ts, receiver-checks.ts, config-file.ts):
// they are reached through main(), verifyReceiver() and the followup binary, and their shape
// may change in any release.

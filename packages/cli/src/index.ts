/**
 * `@followup/cli`: the `followup` command (`listen`, `trigger`, `verify-receiver`, `login`,
 * `logout`) and, as a library, {@link verifyReceiver}: the checks `followup verify-receiver`
 * runs against a webhook receiver, for a test suite or a CI job.
 *
 * @packageDocumentation
 */

// The report of verifyReceiver, whose checks live in @followup/sdk/receiver-checks (shared with
// @followup/server/testing): the same types, named here for users of this package.
export type {
  ReceiverCheck,
  ReceiverCheckStatus,
  ReceiverReport,
  VerifyReceiverOptions,
} from '@followup/sdk/receiver-checks';
export {
  FollowUpCliError,
  type FollowUpCliErrorOptions,
} from './cli-error.js';
export type { CliClock, CliIo, TextSink } from './cli-io.js';
export { EXIT_FAILED, EXIT_OK, EXIT_USAGE, main } from './main.js';
export { verifyReceiver } from './verify-receiver.js';

// Deliberately not exported: the commands themselves, their argument parsing and the
// configuration files (src/*-command.ts, config-file.ts): they are reached through main(),
// verifyReceiver() and the followup binary, and their shape may change in any release. The
// checks one by one are private to @followup/sdk/receiver-checks.

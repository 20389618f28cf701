import { accountCommandOptions, accountCommands } from './account-commands.js';
import { contactCommandOptions, contactCommands } from './contact-commands.js';
import { dataCommandOptions, dataCommands } from './data-commands.js';
import { deliveryCommandOptions, deliveryCommands } from './delivery-commands.js';
import { endpointCommandOptions, endpointCommands } from './endpoint-commands.js';
import type { OperatorCommand } from './operator-command.js';
import { receiptCommandOptions, receiptCommands } from './receipt-commands.js';
import type { OptionName } from './usage.js';
import { userCommandOptions, userCommands } from './user-commands.js';

/** @internal The operator's commands (the interface's "settings area"), by name. */
export const operatorCommands: Readonly<Record<string, OperatorCommand>> = {
  ...accountCommands,
  ...endpointCommands,
  ...deliveryCommands,
  ...dataCommands,
  ...receiptCommands,
  ...userCommands,
  ...contactCommands,
};

/**
 * @internal The options each operator command takes, beside `GLOBAL_OPTIONS`: `runCli` refuses
 * any other with a usage error, so that an option is never silently ignored.
 */
export const operatorCommandOptions: Readonly<Record<string, readonly OptionName[]>> = {
  ...accountCommandOptions,
  ...endpointCommandOptions,
  ...deliveryCommandOptions,
  ...dataCommandOptions,
  ...receiptCommandOptions,
  ...userCommandOptions,
  ...contactCommandOptions,
};

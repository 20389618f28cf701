import { listReceiptsInOrder } from '../stores/receipt-store.js';
import { listOutput, type OperatorCommand, pageOf } from './operator-command.js';
import { type OptionName, PAGE_OPTIONS } from './usage.js';

/** @internal `receipts list`: the EHR webhook receipts, oldest first. */
export const receiptCommands: Readonly<Record<string, OperatorCommand>> = {
  async 'receipts list'(values, database) {
    const page = pageOf(values);
    const receipts = await listReceiptsInOrder(database, {
      vendor: values.vendor,
      limit: page.limit,
      offset: page.offset,
    });
    return listOutput(
      receipts,
      (receipt) =>
        `${receipt.id}  ${receipt.vendor}  ${receipt.verdict}  ${receipt.receivedAt}  ` +
        `${receipt.bodyBytes} bytes${receipt.handlerError ? '  handler failed' : ''}\n`,
      page,
    );
  },
};

/** @internal The options of `receipts list` (see `operatorCommandOptions`). */
export const receiptCommandOptions: Readonly<Record<string, readonly OptionName[]>> = {
  'receipts list': ['vendor', ...PAGE_OPTIONS],
};

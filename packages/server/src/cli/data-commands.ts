import { systemClock } from '../clock.js';
import { seedDemoData } from '../demo/demo-data.js';
import { pruneExpired } from '../retention/retention.js';
import { retentionOptions } from './edge-options.js';
import { type OperatorCommand, output } from './operator-command.js';
import { type OptionName, required, UsageError } from './usage.js';

/** @internal `seed` and `prune`: demo data added, and what outlived its retention deleted. */
export const dataCommands: Readonly<Record<string, OperatorCommand>> = {
  async seed(values, database, onProgress) {
    const text = required(values, 'contacts');
    if (!/^\d{1,7}$/.test(text) || Number(text) > 1_000_000) {
      throw new UsageError('--contacts is a whole number from 0 to 1000000.');
    }
    const added = await seedDemoData(database, {
      contacts: Number(text),
      ...(onProgress ? { onProgress } : {}),
    });
    return output(added, `Added ${added.contacts} demo contacts and ${added.deals} deals\n`);
  },

  async prune(values, database) {
    const policy = retentionOptions(values, {});
    const pruned = await pruneExpired(database, { now: systemClock.now(), policy });
    return output(
      pruned,
      Object.entries(pruned)
        .map(([kind, count]) => `${kind}: ${count} deleted\n`)
        .join(''),
    );
  },
};

/** @internal The options of `seed` and `prune` (see `operatorCommandOptions`). */
export const dataCommandOptions: Readonly<Record<string, readonly OptionName[]>> = {
  seed: ['contacts'],
  prune: ['receipt-retention', 'delivery-retention', 'tombstone-retention'],
};

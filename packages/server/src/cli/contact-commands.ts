import type { ContactErasure } from '@followup/sdk';
import { systemClock } from '../clock.js';
import { eraseContact } from '../erasure/contact-erasure.js';
import { createIdGenerator } from '../ids.js';
import type { OperatorCommand, OperatorOutput } from './operator-command.js';
import { type OptionName, UsageError } from './usage.js';

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** The text for people of an erasure: what was erased, and the receipts kept. */
function erasureText(erasure: ContactErasure): string {
  const { events, deliveries, auditEntries, messages, storedResponses } = erasure.erased;
  const receipts = erasure.kept.ehrReceipts;
  return (
    `Erased ${erasure.id}: ${plural(events, 'event', 'events')}, ` +
    `${plural(deliveries, 'delivery', 'deliveries')}, ` +
    `${plural(auditEntries, 'audit entry', 'audit entries')}, ` +
    `${plural(messages, 'inbox message', 'inbox messages')}, ` +
    `${plural(storedResponses, 'stored response', 'stored responses')}\n` +
    (receipts.length === 0
      ? 'No EHR receipt mentions the contact.\n'
      : `Kept as received, ${plural(receipts.length, 'EHR receipt', 'EHR receipts')} that ` +
        'mention the contact ' +
        `(deleted after the receipt retention):\n${receipts.map((id) => `  ${id}\n`).join('')}`)
  );
}

/**
 * @internal `contacts …`: the operator's side of the contact actions that the API also offers,
 * through the same functions (audited with actor `operator`).
 */
export const contactCommands: Readonly<Record<string, OperatorCommand>> = {
  async 'contacts erase'(values, database): Promise<OperatorOutput> {
    const contactId = values.contact;
    if (contactId === undefined || contactId === '') {
      throw new UsageError('--contact is required.');
    }
    const erasure = await eraseContact(
      {
        database,
        clock: systemClock,
        newId: createIdGenerator({ now: () => systemClock.now() }),
        actor: { type: 'operator' },
      },
      contactId,
    );
    return { json: erasure, text: erasureText(erasure) };
  },
};

/** @internal The options each `contacts …` command takes, beside `GLOBAL_OPTIONS`. */
export const contactCommandOptions: Readonly<Record<string, readonly OptionName[]>> = {
  'contacts erase': ['contact'],
};

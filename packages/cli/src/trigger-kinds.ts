import { randomUUID } from 'node:crypto';
import type { FollowUp, WebhookEventKind } from '@followup/sdk';
import { usageError } from './cli-error.js';
import { echoable } from './command.js';

/** @internal What a trigger needs beyond the client. */
export interface TriggerContext {
  client: FollowUp;
  /** The server's `INBOX_WEBHOOK_SECRET`, for `message.received`. */
  inboxSecret: string | undefined;
}

/** @internal What a trigger made: the records by name, and the one its event is about. */
export interface Triggered {
  /** The records made or changed, by what they are (`contact`, `deal`, `message`). */
  ids: Record<string, string>;
  /** The id the event's `data.id` carries. */
  subjectId: string;
  /** Deletes what the trigger left behind (`--cleanup`); absent when nothing is left. */
  cleanup?: () => Promise<string[]>;
}

/** @internal One kind `followup trigger` can make happen, and how. */
export interface TriggerKind {
  kind: WebhookEventKind;
  /** What it does on the server, for `--list`. */
  does: string;
  run(context: TriggerContext): Promise<Triggered>;
}

// Trigger records say what they are, and each has its own address, so that two triggers never
// collide on an e-mail-keyed upsert and a person reading the contact list knows where they came
// from (example.com is reserved for examples: no mail ever reaches anyone).
function newContactInput() {
  const tag = randomUUID().slice(0, 8);
  return {
    firstName: 'Trigger',
    lastName: `followup-cli ${tag}`,
    email: `trigger-${tag}@example.com`,
  };
}

async function newContact(client: FollowUp) {
  return client.contacts.create(newContactInput());
}

async function newDeal(client: FollowUp) {
  const contact = await newContact(client);
  const deal = await client.deals.create({
    contactId: contact.id,
    title: 'Trigger deal (followup-cli)',
    amountCents: 100_00,
    currency: 'USD',
  });
  return { contact, deal };
}

function deleteContact(client: FollowUp, id: string) {
  return async () => {
    await client.contacts.delete(id);
    return [`deleted contact ${id}${id.startsWith('con_') ? ' (and its deals)' : ''}`];
  };
}

/**
 * @internal Every kind `followup trigger` makes happen through the API, in the order of the
 * wire contract's `WEBHOOK_EVENT_KINDS`. `ehr.receipt.recorded` is not among them: it needs a
 * delivery signed with an EHR vendor's secret, which only the vendor holds.
 */
export const TRIGGER_KINDS: readonly TriggerKind[] = [
  {
    kind: 'contact.created',
    does: 'creates a contact',
    async run({ client }) {
      const contact = await newContact(client);
      return {
        ids: { contact: contact.id },
        subjectId: contact.id,
        cleanup: deleteContact(client, contact.id),
      };
    },
  },
  {
    kind: 'contact.updated',
    does: 'creates a contact, then changes its lifecycle to PROSPECT',
    async run({ client }) {
      const contact = await newContact(client);
      await client.contacts.update(contact.id, { lifecycle: 'PROSPECT' });
      return {
        ids: { contact: contact.id },
        subjectId: contact.id,
        cleanup: deleteContact(client, contact.id),
      };
    },
  },
  {
    kind: 'contact.deleted',
    does: 'creates a contact, then deletes it',
    async run({ client }) {
      const contact = await newContact(client);
      await client.contacts.delete(contact.id);
      return { ids: { contact: contact.id }, subjectId: contact.id };
    },
  },
  {
    kind: 'contact.erased',
    does: 'creates a contact, then erases it',
    async run({ client }) {
      const contact = await newContact(client);
      await client.contacts.erase(contact.id);
      return { ids: { contact: contact.id }, subjectId: contact.id };
    },
  },
  {
    kind: 'deal.created',
    does: 'creates a contact and a deal of it',
    async run({ client }) {
      const { contact, deal } = await newDeal(client);
      return {
        ids: { contact: contact.id, deal: deal.id },
        subjectId: deal.id,
        cleanup: deleteContact(client, contact.id),
      };
    },
  },
  {
    kind: 'deal.updated',
    does: 'creates a contact and a deal, then moves the deal to WON',
    async run({ client }) {
      const { contact, deal } = await newDeal(client);
      await client.deals.update(deal.id, { stage: 'WON' });
      return {
        ids: { contact: contact.id, deal: deal.id },
        subjectId: deal.id,
        cleanup: deleteContact(client, contact.id),
      };
    },
  },
  {
    kind: 'deal.deleted',
    does: 'creates a contact and a deal, then deletes the deal',
    async run({ client }) {
      const { contact, deal } = await newDeal(client);
      await client.deals.delete(deal.id);
      return {
        ids: { contact: contact.id, deal: deal.id },
        subjectId: deal.id,
        cleanup: deleteContact(client, contact.id),
      };
    },
  },
  {
    kind: 'message.received',
    does: 'posts a message to the inbox webhook (needs --inbox-secret)',
    async run({ client, inboxSecret }) {
      if (!inboxSecret) {
        throw usageError(
          "message.received posts to the inbox webhook: pass --inbox-secret (or set FOLLOWUP_INBOX_SECRET) to the server's INBOX_WEBHOOK_SECRET.",
        );
      }
      const message = await client.inbox.send(
        {
          from: 'trigger@example.com',
          subject: 'Trigger message (followup-cli)',
          text: 'Sent by followup trigger message.received.',
        },
        { secret: inboxSecret },
      );
      return { ids: { message: message.id }, subjectId: message.id };
    },
  },
];

/** @internal The trigger of `kind`, or a usage error naming the kinds there are. */
export function triggerKindOf(kind: string): TriggerKind {
  const found = TRIGGER_KINDS.find((candidate) => candidate.kind === kind);
  if (found) return found;
  const why =
    kind === 'ehr.receipt.recorded'
      ? "ehr.receipt.recorded needs a delivery signed with an EHR vendor's secret, which followup does not hold."
      : `Unknown event kind ${echoable(kind)}.`;
  throw usageError(
    `${why} It can trigger: ${TRIGGER_KINDS.map((entry) => entry.kind).join(', ')}.`,
  );
}

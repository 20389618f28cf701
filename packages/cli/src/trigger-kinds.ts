import { randomUUID } from 'node:crypto';
import { AuthenticationError, type FollowUp, type WebhookEventKind } from '@followup/sdk';
import { usageError } from './cli-error.js';
import { echoable } from './command.js';
import { ehrSecretVariable, postEhrWebhook, signedVendorProfile } from './ehr-webhook.js';

/** @internal What a trigger needs beyond the client. */
export interface TriggerContext {
  client: FollowUp;
  /** The server's origin, for the routes the SDK has no method of (the EHR webhooks). */
  baseUrl: string;
  fetch: typeof fetch;
  /** Now, in milliseconds since the epoch. */
  now: number;
  /** The server's `INBOX_WEBHOOK_SECRET`, for `message.received`; none for an open inbox. */
  inboxSecret: string | undefined;
  /** The EHR vendor to sign as, for `ehr.receipt.recorded`. */
  ehrVendor: string;
  /** The server's `EHR_WEBHOOK_SECRET_<VENDOR>`, for `ehr.receipt.recorded`. */
  ehrSecret: string | undefined;
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
 * wire contract's `WEBHOOK_EVENT_KINDS`. `ehr.receipt.recorded` takes a delivery signed with the
 * EHR vendor's secret, which the server's operator holds too (`EHR_WEBHOOK_SECRET_<VENDOR>`).
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
    does: 'posts a message to the inbox webhook (with --inbox-secret where the server has one)',
    async run({ client, inboxSecret }) {
      const message = await client.inbox
        .send(
          {
            from: 'trigger@example.com',
            subject: 'Trigger message (followup-cli)',
            text: 'Sent by followup trigger message.received.',
          },
          inboxSecret ? { secret: inboxSecret } : {},
        )
        .catch((error: unknown) => {
          if (!inboxSecret && AuthenticationError.isInstance(error)) {
            throw usageError(
              "This server's inbox has a secret: pass --inbox-secret (or set FOLLOWUP_INBOX_SECRET) to its INBOX_WEBHOOK_SECRET.",
            );
          }
          throw error;
        });
      return { ids: { message: message.id }, subjectId: message.id };
    },
  },
  {
    kind: 'ehr.receipt.recorded',
    does: 'posts a webhook signed as an EHR vendor (needs --ehr-secret)',
    async run({ baseUrl, fetch, now, ehrVendor, ehrSecret }) {
      const profile = signedVendorProfile(ehrVendor);
      if (!ehrSecret) {
        throw usageError(
          `ehr.receipt.recorded posts a webhook signed as the EHR vendor ${profile.key}: pass --ehr-secret (or set FOLLOWUP_EHR_SECRET) to the server's ${ehrSecretVariable(profile.key)}.`,
        );
      }
      const receiptId = await postEhrWebhook({ baseUrl, profile, secret: ehrSecret, fetch, now });
      return { ids: { receipt: receiptId }, subjectId: receiptId };
    },
  },
];

/** @internal The trigger of `kind`, or a usage error naming the kinds there are. */
export function triggerKindOf(kind: string): TriggerKind {
  const found = TRIGGER_KINDS.find((candidate) => candidate.kind === kind);
  if (found) return found;
  throw usageError(
    `Unknown event kind ${echoable(kind)}. It can trigger: ${TRIGGER_KINDS.map((entry) => entry.kind).join(', ')}.`,
  );
}

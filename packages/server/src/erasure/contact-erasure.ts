import { type ContactErasure, ERASED_VALUE } from '@followup/sdk';
import { recordAuditEntry } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import { ProblemError } from '../problem-error.js';
import type { Database, Queryable } from '../storage/database.js';
import type { AuditActor } from '../stores/audit-store.js';
import {
  type ErasableEvent,
  eraseDeliveryAnswers,
  eraseMessagesFrom,
  findReceiptsMentioning,
  lockAuditDetails,
  lockContactEvents,
  lockDealEvents,
  lockMessageEvents,
  lockStoredResponses,
  writeAuditDetails,
  writeErasedEvents,
  writeStoredResponses,
} from '../stores/contact-erasure-store.js';
import { contactTable, lockContact } from '../stores/contact-store.js';
import { notifyOutboxListeners, recordOutboxEvent } from '../stores/outbox-store.js';
import { resourceStore } from '../stores/resource-store.js';
import { comparableValue, eraseFields, eraseKnownValues, eraseRecordsOf } from './erased-values.js';

/** What a contact's erasure needs: storage, time, ids, and who erases (for the audit log). */
export interface ContactErasureContext {
  database: Database;
  clock: Clock;
  newId: IdGenerator;
  /** Who erases: recorded in the audit entries. */
  actor: AuditActor;
  /** Told after the erasure committed its events (wakes this process's delivery worker). */
  onOutboxEvent?: (() => void) | undefined;
}

/** The fields of a deal that are erased with its contact: its free text. */
const DEAL_FIELDS = ['title'] as const;
/** The fields of an inbox message from the contact's address that are erased. */
const MESSAGE_FIELDS = ['from', 'subject', 'text'] as const;
/** The shortest phone number looked for in EHR receipts: shorter ones match too much. */
const MIN_PHONE_NEEDLE = 6;

/** The values a contact had, in its row and in every event about it. */
interface KnownValues {
  firstNames: Set<string>;
  lastNames: Set<string>;
  emails: Set<string>;
  phones: Set<string>;
}

function knownValuesOf(records: readonly (Record<string, unknown> | null)[]): KnownValues {
  const known: KnownValues = {
    firstNames: new Set(),
    lastNames: new Set(),
    emails: new Set(),
    phones: new Set(),
  };
  const add = (set: Set<string>, value: unknown) => {
    if (typeof value === 'string' && value !== '' && value !== ERASED_VALUE) set.add(value);
  };
  for (const record of records) {
    if (!record) continue;
    add(known.firstNames, record.firstName);
    add(known.lastNames, record.lastName);
    add(known.emails, record.email);
    add(known.phones, record.phone);
  }
  return known;
}

/**
 * Erases a person: deletes the contact and its deals as `DELETE /api/contacts/{id}` does (when
 * the row still exists), then replaces every stored copy of the contact's values by
 * `"[erased]"`, keeping ids, kinds and times, in one transaction:
 *
 * - events (`outbox_events`, the feed and every webhook body, pending or sent): the contact's
 *   fields in the `data` and `previousAttributes` of its `contact.*` events, the `title` of its
 *   deals' `deal.*` events, and `from`, `subject` and `text` of the `message.received` events of
 *   messages from its e-mail addresses;
 * - the stored answers of those events' delivery attempts (`delivery_attempts.response_excerpt`);
 * - audit entries about the contact or its deals: any detail equal to one of its values;
 * - inbox messages from one of its e-mail addresses: sender, subject and text;
 * - the responses kept for `Idempotency-Key` replays that hold the contact or one of its deals.
 *
 * EHR receipts are kept as the vendor sent them: the ids of those whose body mentions the
 * contact (its id, an e-mail address, a phone number, or both a first and a last name it had)
 * are answered in `kept.ehrReceipts`. A contact deleted earlier is erased as long as an event
 * still carries its id; otherwise the answer is 404 `not_found`. The erasure is audited as
 * `contact.erased` (the counts, never a value) and announced as `contact.erased` (the id only).
 *
 * The API route (`POST /api/contacts/{id}/erase`) and the operator command (`contacts erase`)
 * both call this function.
 *
 * @example
 * ```ts
 * const erasure = await eraseContact({ database, clock, newId, actor: { type: 'operator' } }, id);
 * console.log(erasure.erased.events, 'events erased');
 * ```
 */
export async function eraseContact(
  context: ContactErasureContext,
  contactId: string,
): Promise<ContactErasure> {
  const { database, clock, newId, actor } = context;
  const contacts = resourceStore(contactTable({ clock, newId }), { clock, newId });
  const contactFields = Object.keys(contacts.table.fields);
  const erasure = await database.transaction(async (transaction) => {
    // The row first, locked: an update or a new deal waits for this transaction, then finds no
    // contact.
    const contact = await lockContact(transaction, contactId);
    if (contact) await contacts.deleteRecord(transaction, { actor, id: contactId });

    const contactEvents = await lockContactEvents(transaction, contactId);
    if (!contact && contactEvents.length === 0) {
      throw new ProblemError({
        code: 'not_found',
        detail: `No contact, and no stored event, has the id ${JSON.stringify(contactId)}.`,
      });
    }
    const known = knownValuesOf([
      contact,
      ...contactEvents.flatMap((event) => [event.data, event.previous_attributes]),
    ]);
    const emails = [...known.emails];

    // Inbox messages from one of its addresses, then their events.
    const messages = await eraseMessagesFrom(transaction, { emails, erased: ERASED_VALUE });
    const dealEvents = await lockDealEvents(transaction, contactId);
    const messageEvents = await lockMessageEvents(transaction, {
      messageIds: messages.ids,
      emails,
    });

    const erasedEvents = [
      ...contactEvents.map((event) => erasedEvent(event, contactFields)),
      ...dealEvents.map((event) => erasedEvent(event, DEAL_FIELDS)),
      ...messageEvents.map((event) => erasedEvent(event, MESSAGE_FIELDS)),
    ];
    const changedEvents = erasedEvents.filter((event) => event.changed);
    if (changedEvents.length > 0) await writeErasedEvents(transaction, changedEvents);

    // Deliveries build their body from the event when they are sent: a pending one now sends
    // the erased body. The stored answers of every attempt of the person's events go too (a
    // subscriber may echo what it received).
    const deliveries = await eraseDeliveryAnswers(transaction, {
      changedEventIds: changedEvents.map((event) => event.id),
      eventIds: erasedEvents.map((event) => event.id),
      erased: ERASED_VALUE,
    });

    const dealIds = [
      ...new Set(dealEvents.map((event) => event.data.id).filter((id) => typeof id === 'string')),
    ];
    const auditEntries = await eraseAuditDetails(transaction, {
      contactId,
      dealIds,
      known: new Set(
        [
          ...known.firstNames,
          ...known.lastNames,
          ...known.emails,
          ...known.phones,
          ...[...known.firstNames].flatMap((first) =>
            [...known.lastNames].map((last) => `${first} ${last}`),
          ),
        ].map(comparableValue),
      ),
    });
    const storedResponses = await eraseStoredResponses(transaction, {
      contactId,
      contactFields,
      dealFields: DEAL_FIELDS,
    });
    const ehrReceipts = await receiptsMentioning(transaction, contactId, known);

    const counts = {
      events: changedEvents.length,
      deliveries,
      auditEntries,
      messages: messages.count,
      storedResponses,
    };
    await recordAuditEntry(
      transaction,
      {
        action: 'contact.erased',
        actor,
        target: { type: 'contact', id: contactId },
        metadata: {
          contactDeleted: contact !== null,
          ...counts,
          ehrReceiptsKept: ehrReceipts.length,
        },
      },
      { clock, newId },
    );
    await recordOutboxEvent(
      transaction,
      { event: 'contact.erased', data: { id: contactId } },
      { clock, newId },
    );
    // Wakes the delivery workers of every process, the CLI's erasure on PostgreSQL included.
    await notifyOutboxListeners(transaction);
    return { id: contactId, erased: counts, kept: { ehrReceipts } };
  });
  context.onOutboxEvent?.();
  return erasure;
}

/** An event with `fields` erased from its `data` and `previousAttributes`. */
function erasedEvent(event: ErasableEvent, fields: readonly string[]) {
  const data = eraseFields(event.data, fields);
  const previous =
    event.previous_attributes === null ? null : eraseFields(event.previous_attributes, fields);
  const changed =
    JSON.stringify(data) !== JSON.stringify(event.data) ||
    JSON.stringify(previous) !== JSON.stringify(event.previous_attributes);
  return { id: event.id, data, previous, changed };
}

/**
 * Erases every detail equal to one of the person's values from the audit entries about the
 * contact or its deals; answers how many entries changed. The entries' actions, actors, targets
 * and times stay: they say what was done, not to whom by name.
 */
async function eraseAuditDetails(
  transaction: Queryable,
  options: { contactId: string; dealIds: readonly string[]; known: ReadonlySet<string> },
): Promise<number> {
  const rows = await lockAuditDetails(transaction, options);
  const changed = rows
    .map((row) => ({
      id: row.id,
      before: row.metadata,
      after: eraseKnownValues(row.metadata, options.known),
    }))
    .filter((row) => JSON.stringify(row.before) !== JSON.stringify(row.after));
  if (changed.length > 0) {
    await writeAuditDetails(
      transaction,
      changed.map((row) => ({ id: row.id, metadata: row.after })),
    );
  }
  return changed.length;
}

/**
 * Erases the contact and its deals from the responses kept for `Idempotency-Key` replays (a
 * create, a batch): a replay then answers the erased record. Answers how many changed.
 */
async function eraseStoredResponses(
  transaction: Queryable,
  records: { contactId: string; contactFields: readonly string[]; dealFields: readonly string[] },
): Promise<number> {
  // A deal's answer names its contact's id too, so the id finds both.
  const rows = await lockStoredResponses(transaction, records.contactId);
  const changed: { account_id: string; key: string; body: string }[] = [];
  for (const row of rows) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(row.response_body);
    } catch {
      continue;
    }
    const body = JSON.stringify(eraseRecordsOf(parsed, records));
    if (body !== JSON.stringify(parsed)) changed.push({ ...row, body });
  }
  if (changed.length > 0) await writeStoredResponses(transaction, changed);
  return changed.length;
}

/**
 * The ids of the EHR receipts whose body mentions the person: its id, one of its e-mail
 * addresses or phone numbers, or both a first and a last name it had, compared without regard to
 * ASCII case. The bodies are kept as received; the ids are listed so that the operator knows.
 */
async function receiptsMentioning(
  transaction: Queryable,
  contactId: string,
  known: KnownValues,
): Promise<string[]> {
  const identifiers = [
    contactId,
    ...known.emails,
    ...[...known.phones].filter((phone) => phone.length >= MIN_PHONE_NEEDLE),
  ];
  return findReceiptsMentioning(transaction, {
    identifiers,
    firstNames: [...known.firstNames],
    lastNames: [...known.lastNames],
  });
}

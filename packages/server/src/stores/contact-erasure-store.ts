import type { Queryable } from '../storage/database.js';

// The statements of a contact's erasure (`erasure/contact-erasure.ts`), across the tables that
// hold copies of a person's values: outbox events, inbox messages, delivery attempts, audit
// entries, stored `Idempotency-Key` answers and EHR receipts. Each runs in the erasure's
// transaction; the erasure decides what is erased, these only read, lock and write.

/** @internal An outbox event, locked for its erasure. */
export interface ErasableEvent {
  id: string;
  event: string;
  data: Record<string, unknown>;
  previous_attributes: Record<string, unknown> | null;
}

/**
 * @internal How a value is compared in SQL with a person's known values: `lower` of the text
 * without surrounding spaces, tabs and line breaks, as `comparableValue` does in JavaScript (both
 * sides go through it, so that they agree on case folding). `text` is an SQL expression of type
 * text.
 */
export function comparableValueSql(text: string): string {
  return `lower(btrim(${text}, chr(32) || chr(9) || chr(10) || chr(13)))`;
}

/**
 * @internal The SQL expression of the address an inbox message's sender (`from`) names, to
 * compare with a contact's e-mail addresses through {@link comparableValueSql}: the part between
 * the last `<` and `>` of `Ada Lovelace <ada@example.com>`, or the whole text of a bare address.
 * `column` is an SQL expression of type text.
 */
export function senderAddressSql(column: string): string {
  return comparableValueSql(`coalesce(substring(${column} from '<([^<>]*)>[^<>]*$'), ${column})`);
}

async function lockEvents(
  transaction: Queryable,
  condition: string,
  params: readonly unknown[],
): Promise<ErasableEvent[]> {
  const { rows } = await transaction.query<ErasableEvent>(
    `SELECT id, event, data, previous_attributes FROM outbox_events
      WHERE ${condition} ORDER BY seq FOR UPDATE`,
    params,
  );
  return rows;
}

/** @internal The `contact.*` events of a contact, in order, locked. */
export function lockContactEvents(
  transaction: Queryable,
  contactId: string,
): Promise<ErasableEvent[]> {
  return lockEvents(transaction, `event LIKE 'contact.%' AND data->>'id' = $1`, [contactId]);
}

/** @internal The `deal.*` events of a contact's deals, in order, locked. */
export function lockDealEvents(
  transaction: Queryable,
  contactId: string,
): Promise<ErasableEvent[]> {
  return lockEvents(transaction, `event LIKE 'deal.%' AND data->>'contactId' = $1`, [contactId]);
}

/**
 * @internal The `message.received` events of these messages or from one of these addresses, in
 * order, locked.
 */
export function lockMessageEvents(
  transaction: Queryable,
  from: { messageIds: readonly string[]; emails: readonly string[] },
): Promise<ErasableEvent[]> {
  return lockEvents(
    transaction,
    `event = 'message.received'
         AND (data->>'id' = ANY($1::text[])
              OR ${senderAddressSql(`data->>'from'`)} IN
                 (SELECT ${comparableValueSql('address')} FROM unnest($2::text[]) AS address))`,
    [from.messageIds, from.emails],
  );
}

/**
 * @internal Replaces sender, subject and text (where there is one) of the inbox messages from one
 * of these addresses by `erased`; answers their ids and how many.
 */
export async function eraseMessagesFrom(
  transaction: Queryable,
  options: { emails: readonly string[]; erased: string },
): Promise<{ ids: string[]; count: number }> {
  const messages = await transaction.query<{ id: string }>(
    `UPDATE messages
          SET sender = $2, subject = $2, text = CASE WHEN text IS NULL THEN NULL ELSE $2 END
        WHERE ${senderAddressSql('sender')} IN
              (SELECT ${comparableValueSql('address')} FROM unnest($1::text[]) AS address)
        RETURNING id`,
    [options.emails, options.erased],
  );
  return { ids: messages.rows.map((row) => row.id), count: messages.rowCount };
}

/** @internal Writes each event's erased `data` and `previousAttributes`. */
export async function writeErasedEvents(
  transaction: Queryable,
  events: readonly {
    id: string;
    data: Record<string, unknown>;
    previous: Record<string, unknown> | null;
  }[],
): Promise<void> {
  await transaction.query(
    `UPDATE outbox_events AS event
            SET data = erased.data::jsonb, previous_attributes = erased.previous::jsonb
           FROM unnest($1::text[], $2::text[], $3::text[]) AS erased (id, data, previous)
          WHERE event.id = erased.id`,
    [
      events.map((event) => event.id),
      events.map((event) => JSON.stringify(event.data)),
      events.map((event) => (event.previous === null ? null : JSON.stringify(event.previous))),
    ],
  );
}

/**
 * @internal Replaces the stored answer of every delivery attempt of `eventIds` by `erased`;
 * answers how many deliveries that touched, with those of `changedEventIds` (whose body changed).
 */
export async function eraseDeliveryAnswers(
  transaction: Queryable,
  options: { changedEventIds: readonly string[]; eventIds: readonly string[]; erased: string },
): Promise<number> {
  const deliveries = await transaction.query<{ count: number }>(
    `WITH erased_attempts AS (
         UPDATE delivery_attempts SET response_excerpt = convert_to($3, 'UTF8')
          WHERE response_excerpt IS NOT NULL AND response_excerpt <> convert_to($3, 'UTF8')
            AND delivery_id IN (SELECT id FROM deliveries WHERE event_id = ANY($2::text[]))
          RETURNING delivery_id)
       SELECT count(*)::int AS count FROM (
         SELECT id FROM deliveries WHERE event_id = ANY($1::text[])
         UNION SELECT delivery_id FROM erased_attempts) AS touched`,
    [options.changedEventIds, options.eventIds, options.erased],
  );
  return deliveries.rows[0]?.count ?? 0;
}

/** @internal The audit entries about a contact or its deals, with their details, locked. */
export async function lockAuditDetails(
  transaction: Queryable,
  about: { contactId: string; dealIds: readonly string[] },
): Promise<{ id: string; metadata: unknown }[]> {
  const { rows } = await transaction.query<{ id: string; metadata: unknown }>(
    `SELECT id, metadata FROM audit_entries
      WHERE (target_type = 'contact' AND target_id = $1)
         OR (target_type = 'deal' AND target_id = ANY($2::text[]))
      FOR UPDATE`,
    [about.contactId, about.dealIds],
  );
  return rows;
}

/** @internal Writes the erased details of these audit entries. */
export async function writeAuditDetails(
  transaction: Queryable,
  entries: readonly { id: string; metadata: unknown }[],
): Promise<void> {
  await transaction.query(
    `UPDATE audit_entries AS entry SET metadata = erased.metadata::jsonb
         FROM unnest($1::text[], $2::text[]) AS erased (id, metadata)
        WHERE entry.id = erased.id`,
    [entries.map((entry) => entry.id), entries.map((entry) => JSON.stringify(entry.metadata))],
  );
}

/** @internal A response kept for an `Idempotency-Key` replay. */
export interface StoredResponse {
  account_id: string;
  key: string;
  response_body: string;
}

/** @internal The stored responses whose body holds `text` (an id), locked. */
export async function lockStoredResponses(
  transaction: Queryable,
  text: string,
): Promise<StoredResponse[]> {
  const { rows } = await transaction.query<StoredResponse>(
    `SELECT account_id, key, response_body FROM idempotency_keys
      WHERE response_body IS NOT NULL AND strpos(response_body, $1) > 0
      FOR UPDATE`,
    [text],
  );
  return rows;
}

/** @internal Writes these stored responses' erased bodies. */
export async function writeStoredResponses(
  transaction: Queryable,
  responses: readonly { account_id: string; key: string; body: string }[],
): Promise<void> {
  await transaction.query(
    `UPDATE idempotency_keys AS stored SET response_body = erased.body
         FROM unnest($1::text[], $2::text[], $3::text[]) AS erased (account_id, key, body)
        WHERE stored.account_id = erased.account_id AND stored.key = erased.key`,
    [
      responses.map((row) => row.account_id),
      responses.map((row) => row.key),
      responses.map((row) => row.body),
    ],
  );
}

/**
 * @internal The ids of the EHR receipts, oldest first, whose body mentions one of `identifiers`,
 * or both one of `firstNames` and one of `lastNames`, compared without regard to ASCII case.
 */
export async function findReceiptsMentioning(
  transaction: Queryable,
  needles: {
    identifiers: readonly string[];
    firstNames: readonly string[];
    lastNames: readonly string[];
  },
): Promise<string[]> {
  // `escape` encoding keeps ASCII as it is (and escapes other bytes the same way on both sides),
  // so that lower() folds ASCII case in any body, valid UTF-8 or not.
  const mentions = (array: string) =>
    `EXISTS (SELECT FROM unnest(${array}::text[]) AS needle
              WHERE strpos(lower(encode(receipt.raw_body, 'escape')),
                           lower(encode(convert_to(needle, 'UTF8'), 'escape'))) > 0)`;
  const { rows } = await transaction.query<{ id: string }>(
    `SELECT id FROM ehr_receipts AS receipt
      WHERE ${mentions('$1')} OR (${mentions('$2')} AND ${mentions('$3')})
      ORDER BY received_at, id`,
    [needles.identifiers, needles.firstNames, needles.lastNames],
  );
  return rows.map((row) => row.id);
}

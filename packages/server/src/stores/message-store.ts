import type { InboxMessage } from '@followup/sdk';
import type { Queryable } from '../storage/database.js';

/** @internal A message to store, as the inbox received it. */
export interface NewMessage {
  /** The `msg_…` id. */
  id: string;
  from: string;
  subject: string;
  text: string | undefined;
  receivedAt: Date;
}

interface MessageRow {
  id: string;
  sender: string;
  subject: string;
  text: string | null;
  received_at: string;
}

/**
 * @internal Stores an inbox message; called in the transaction that also writes its
 * `message.received` event.
 */
export async function insertMessage(transaction: Queryable, message: NewMessage): Promise<void> {
  await transaction.query(
    `INSERT INTO messages (id, sender, subject, text, received_at)
             VALUES ($1, $2, $3, $4, $5)`,
    [message.id, message.from, message.subject, message.text ?? null, message.receivedAt],
  );
}

/** @internal Inbox messages as the API answers them, oldest first; `limit` and `offset` are checked by the caller. */
export async function listMessages(
  database: Queryable,
  page: { limit: number; offset: number },
): Promise<InboxMessage[]> {
  const { rows } = await database.query<MessageRow>(
    `SELECT id, sender, subject, text, received_at FROM messages
            ORDER BY received_at, id LIMIT $1 OFFSET $2`,
    [page.limit, page.offset],
  );
  return rows.map((row) => ({
    id: row.id,
    from: row.sender,
    subject: row.subject,
    ...(row.text === null ? {} : { text: row.text }),
    receivedAt: row.received_at,
  }));
}

import { z } from 'zod';
import { timestampSchema } from '../internal/timestamp.js';
import { INPUT_LIMITS } from '../wire/limits.js';
import { boundedText } from './input-limits.js';

/**
 * Schema of an inbox message, stored by the inbox webhook (unknown fields are kept).
 *
 * @example
 * ```ts
 * const message = inboxMessageSchema.parse(json);
 * ```
 */
export const inboxMessageSchema = z.looseObject({
  /** The message's id (`msg_…`). */
  id: z.string().min(1),
  /** The sender's address. */
  from: z.string(),
  /** The subject line. */
  subject: z.string(),
  /** The body text, when the e-mail had one. */
  text: z.string().optional(),
  /** When the service received it (ISO 8601 UTC). */
  receivedAt: timestampSchema,
});

/**
 * An inbox message: `id, from, subject, text?, receivedAt`.
 *
 * @example
 * ```ts
 * for await (const message of client.messages.list()) console.log(message.subject);
 * ```
 */
export type InboxMessage = z.infer<typeof inboxMessageSchema>;

/**
 * Schema of a page of `GET /api/messages`: `{ "messages": [...] }`.
 *
 * @example
 * ```ts
 * const { messages } = inboxMessageListSchema.parse(json);
 * ```
 */
export const inboxMessageListSchema = z.looseObject({
  /** The messages of the page. */
  messages: z.array(inboxMessageSchema),
});

/**
 * A page of inbox messages as the service sends it.
 *
 * @example
 * ```ts
 * const body: InboxMessageList = { messages: [] };
 * ```
 */
export type InboxMessageList = z.infer<typeof inboxMessageListSchema>;

/**
 * Schema of the body of `POST /api/inbox/webhook`: `from` and `subject` required, `text`
 * optional.
 *
 * @example
 * ```ts
 * inboxSendInputSchema.parse({ from: 'ada@example.com', subject: 'Hello' });
 * ```
 */
export const inboxSendInputSchema = z.object({
  /** The sender's address. */
  from: boundedText({ min: 1, max: INPUT_LIMITS.inboxFrom }),
  /** The subject line. */
  subject: boundedText({ max: INPUT_LIMITS.inboxSubject }),
  /** The body text. */
  text: boundedText({ max: INPUT_LIMITS.inboxText }).optional(),
});

/**
 * What `client.inbox.send()` takes.
 *
 * @example
 * ```ts
 * const input: InboxSendInput = { from: 'ada@example.com', subject: 'Hello', text: 'Hi!' };
 * await client.inbox.send(input, { secret: process.env.INBOX_WEBHOOK_SECRET });
 * ```
 */
export type InboxSendInput = z.input<typeof inboxSendInputSchema>;

/**
 * Schema of the 201 answer of `POST /api/inbox/webhook`: `{ "id": "msg_…" }`.
 *
 * @example
 * ```ts
 * const { id } = inboxSendResultSchema.parse(json);
 * ```
 */
export const inboxSendResultSchema = z.looseObject({
  /** The id of the stored message. */
  id: z.string().min(1),
});

/**
 * What `client.inbox.send()` resolves to.
 *
 * @example
 * ```ts
 * const { id }: InboxSendResult = await client.inbox.send(input, { secret });
 * ```
 */
export type InboxSendResult = z.infer<typeof inboxSendResultSchema>;

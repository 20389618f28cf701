import { z } from 'zod';
import { timestampSchema } from '../internal/timestamp.js';
import { CONTACT_BATCH_MAX } from '../wire/limits.js';
import { contactSchema, createContactInputSchema } from './contact.js';
import { fieldErrorSchema } from './problem-details.js';

/**
 * Schema of one change of `GET /api/contacts/changes`: a contact created or changed (`changed`,
 * with the contact as it is now) or deleted (`deleted`, with its id). `cursor` is the position
 * just after this change: keep it once the change is applied, and resume from it.
 *
 * @example
 * ```ts
 * const change = contactChangeSchema.parse(json);
 * if (change.type === 'deleted') console.log(change.id, change.deletedAt);
 * ```
 */
export const contactChangeSchema = z.discriminatedUnion('type', [
  z.looseObject({
    /** Created or changed. */
    type: z.literal('changed'),
    /** The contact as it is now. */
    contact: contactSchema,
    /** The position after this change. */
    cursor: z.string().min(1),
  }),
  z.looseObject({
    /** Deleted. */
    type: z.literal('deleted'),
    /** The id of the deleted contact. */
    id: z.string().min(1),
    /** When it was deleted (ISO 8601 UTC). */
    deletedAt: timestampSchema,
    /** The position after this change. */
    cursor: z.string().min(1),
  }),
]);

/**
 * One change of the contacts change feed: `{ type: 'changed', contact, cursor }` or
 * `{ type: 'deleted', id, deletedAt, cursor }`.
 *
 * @example
 * ```ts
 * function apply(change: ContactChange) {
 *   if (change.type === 'changed') store.put(change.contact);
 *   else store.delete(change.id);
 * }
 * ```
 */
export type ContactChange = z.infer<typeof contactChangeSchema>;

/**
 * Schema of a page of `GET /api/contacts/changes`: the changes after a position, in commit order,
 * the position after them (`nextCursor`, never null: a feed has no last page) and whether more
 * changes are already waiting (`hasMore`).
 *
 * @example
 * ```ts
 * const { changes, nextCursor, hasMore } = contactChangeListSchema.parse(json);
 * ```
 */
export const contactChangeListSchema = z.looseObject({
  /** The changes, oldest first. */
  changes: z.array(contactChangeSchema),
  /** Where to continue: pass it back as `cursor`, now or later. */
  nextCursor: z.string().min(1),
  /** Whether more changes follow at once; false when the feed is caught up. */
  hasMore: z.boolean(),
});

/**
 * A page of the contacts change feed.
 *
 * @example
 * ```ts
 * const page: ContactChangeList = { changes: [], nextCursor: 'eyJ…', hasMore: false };
 * ```
 */
export type ContactChangeList = z.infer<typeof contactChangeListSchema>;

/**
 * Schema of one item of a contact batch: a contact to create, with its `email` required (the
 * batch upserts by e-mail).
 *
 * @example
 * ```ts
 * upsertContactInputSchema.parse({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' });
 * ```
 */
export const upsertContactInputSchema = createContactInputSchema.required({ email: true });

/**
 * One item of `client.contacts.upsertMany()`: a contact with its e-mail address.
 *
 * @example
 * ```ts
 * const item: UpsertContactInput = { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' };
 * ```
 */
export type UpsertContactInput = z.input<typeof upsertContactInputSchema>;

/**
 * Schema of the body of `POST /api/contacts/batch`: 1 to 200 items, each checked on its own (an
 * invalid item is reported in its result, not as a 400 of the whole batch).
 *
 * @example
 * ```ts
 * contactBatchInputSchema.parse({ contacts: [{ firstName: 'Ada', lastName: 'L', email: 'a@example.com' }] });
 * ```
 */
export const contactBatchInputSchema = z.strictObject({
  /** The contacts to create or update, matched by e-mail. */
  contacts: z.array(z.unknown()).min(1).max(CONTACT_BATCH_MAX),
});

/**
 * Schema of the result of one batch item, by its `index` in the request: `created` or `updated`
 * with the contact, or `invalid` with what is wrong with it.
 *
 * @example
 * ```ts
 * const result = contactBatchResultSchema.parse(json.results[0]);
 * ```
 */
export const contactBatchResultSchema = z.discriminatedUnion('result', [
  z.looseObject({
    /** The item's position in the request. */
    index: z.number().int().nonnegative(),
    /** No contact had this e-mail address: one was created. */
    result: z.literal('created'),
    /** The contact created. */
    contact: contactSchema,
  }),
  z.looseObject({
    /** The item's position in the request. */
    index: z.number().int().nonnegative(),
    /** The oldest contact with this e-mail address (case-insensitive) took the item's fields. */
    result: z.literal('updated'),
    /** The contact as it is now. */
    contact: contactSchema,
  }),
  z.looseObject({
    /** The item's position in the request. */
    index: z.number().int().nonnegative(),
    /** The item is not a valid contact; nothing was written for it. */
    result: z.literal('invalid'),
    /** What is wrong with the item: each field's path within it, and a message. */
    errors: z.array(fieldErrorSchema),
  }),
]);

/**
 * The result of one item of a contact batch.
 *
 * @example
 * ```ts
 * if (result.result === 'invalid') console.warn(result.index, result.errors);
 * ```
 */
export type ContactBatchResult = z.infer<typeof contactBatchResultSchema>;

/**
 * Schema of the answer of `POST /api/contacts/batch`: one result per item, in request order.
 *
 * @example
 * ```ts
 * const { results } = contactBatchResponseSchema.parse(json);
 * ```
 */
export const contactBatchResponseSchema = z.looseObject({
  /** One per item, in the order of the request. */
  results: z.array(contactBatchResultSchema),
});

/**
 * The answer of a contact batch.
 *
 * @example
 * ```ts
 * const body: ContactBatchResponse = { results: [] };
 * ```
 */
export type ContactBatchResponse = z.infer<typeof contactBatchResponseSchema>;

import { z } from 'zod';

/**
 * The string that replaces every erased value (`POST /api/contacts/{id}/erase`).
 *
 * @example
 * ```ts
 * if (event.data.firstName === ERASED_VALUE) console.log('this person was erased');
 * ```
 */
export const ERASED_VALUE = '[erased]';

const count = z.number().int().nonnegative();

/**
 * Schema of the answer of `POST /api/contacts/{id}/erase`: what the erasure replaced by
 * {@link ERASED_VALUE}, counted by kind of stored record, and the EHR receipts that mention the
 * contact, which are kept as the vendor sent them. Unknown fields are kept.
 *
 * @example
 * ```ts
 * const erasure = contactErasureSchema.parse(json);
 * console.log(erasure.erased.events, 'events erased');
 * ```
 */
export const contactErasureSchema = z.looseObject({
  /** The contact's id (`con_…`). */
  id: z.string().min(1),
  /** How many stored records of each kind held one of the contact's values and now do not. */
  erased: z.looseObject({
    /**
     * Events (`GET /api/events`, webhook bodies) whose `data` or `previousAttributes` held the
     * contact's values: its own, its deals' titles, and its inbox messages'.
     */
    events: count,
    /**
     * Deliveries of those events, pending or sent: a pending one is sent with the erased body,
     * and the stored answers of their attempts are erased too.
     */
    deliveries: count,
    /** Audit entries about the contact or its deals whose details held one of its values. */
    auditEntries: count,
    /** Inbox messages from one of the contact's e-mail addresses (sender, subject and text). */
    messages: count,
    /**
     * Stored answers that the server replays for a repeated `Idempotency-Key` (a create of the
     * contact or of one of its deals, a batch that held it).
     */
    storedResponses: count,
  }),
  /** What the erasure found but keeps as it is. */
  kept: z.looseObject({
    /**
     * The ids (`rcpt_…`) of the EHR receipts whose body mentions the contact (its id, an e-mail
     * address, a phone number, or both its first and last name): receipts are kept as the vendor
     * sent them, and deleted after the receipt retention.
     */
    ehrReceipts: z.array(z.string()),
  }),
});

/**
 * The answer of `client.contacts.erase()`.
 *
 * @example
 * ```ts
 * const erasure: ContactErasure = await client.contacts.erase('con_01J…');
 * console.log(erasure.kept.ehrReceipts);
 * ```
 */
export type ContactErasure = z.infer<typeof contactErasureSchema>;

import { z } from 'zod';
import { timestampSchema } from '../internal/timestamp.js';
import { INPUT_LIMITS } from '../wire/limits.js';
import { boundedText } from './input-limits.js';
import { boundedOpenEnum, openEnum } from './open-enum.js';

/**
 * The lifecycle values FollowUp documents today. The service may send others, so
 * {@link Lifecycle} also accepts any string.
 *
 * @example
 * ```ts
 * import { LIFECYCLE_VALUES } from '@followup/sdk';
 *
 * const known = (LIFECYCLE_VALUES as readonly string[]).includes(contact.lifecycle);
 * ```
 */
export const LIFECYCLE_VALUES = ['LEAD', 'PROSPECT', 'PATIENT', 'INACTIVE'] as const;

/**
 * Schema of a contact's lifecycle: one of {@link LIFECYCLE_VALUES} or any other string (an open
 * enumeration: the interface says values exist that it does not list).
 *
 * @example
 * ```ts
 * lifecycleSchema.parse('PATIENT'); // 'PATIENT'
 * lifecycleSchema.parse('ALUMNI'); // 'ALUMNI', accepted
 * ```
 */
export const lifecycleSchema = openEnum(LIFECYCLE_VALUES);

/**
 * A contact's lifecycle: `'LEAD' | 'PROSPECT' | 'PATIENT' | 'INACTIVE'`, or a value added later.
 *
 * @example
 * ```ts
 * function label(lifecycle: Lifecycle): string {
 *   switch (lifecycle) {
 *     case 'PATIENT':
 *       return 'Patient';
 *     default:
 *       return lifecycle; // a value this SDK version does not know yet
 *   }
 * }
 * ```
 */
export type Lifecycle = z.infer<typeof lifecycleSchema>;

/**
 * Schema of a contact as the service returns it. Unknown fields are kept (a newer service may
 * add some), and {@link Lifecycle} is an open enumeration.
 *
 * @example
 * ```ts
 * import { contactSchema } from '@followup/sdk';
 *
 * const contact = contactSchema.parse(await response.json());
 * ```
 */
export const contactSchema = z.looseObject({
  /** The contact's id (`con_…`), an opaque string. */
  id: z.string().min(1),
  /** Given name. */
  firstName: z.string(),
  /** Family name. */
  lastName: z.string(),
  /** Where the contact is in the follow-up lifecycle (an open enumeration). */
  lifecycle: lifecycleSchema,
  /**
   * E-mail address, when known. Checked as an address when written (the create and update
   * inputs); read back as any string, so that a service that accepts more forms of address than
   * this version knows does not break it.
   */
  email: z.string().optional(),
  /** Phone number, when known, as entered. */
  phone: z.string().optional(),
  /** When the contact was created (ISO 8601 UTC). */
  createdAt: timestampSchema,
  /** When the contact last changed (ISO 8601 UTC). */
  updatedAt: timestampSchema,
});

/**
 * A contact: `id, firstName, lastName, lifecycle, email?, phone?, createdAt, updatedAt`, plus any
 * field a newer service adds.
 *
 * @example
 * ```ts
 * const contact: Contact = await client.contacts.get('con_01J…');
 * console.log(contact.firstName, contact.lifecycle);
 * ```
 */
export type Contact = z.infer<typeof contactSchema>;

/**
 * Schema of the body of `POST /api/contacts`. Unknown fields are refused, so a typo is a 400
 * rather than a silently ignored field.
 *
 * @example
 * ```ts
 * const input = createContactInputSchema.parse({ firstName: 'Ada', lastName: 'Lovelace' });
 * ```
 */
export const createContactInputSchema = z.strictObject({
  /** Given name, 1 to 200 characters. */
  firstName: boundedText({ min: 1, max: INPUT_LIMITS.name }),
  /** Family name, 1 to 200 characters. */
  lastName: boundedText({ min: 1, max: INPUT_LIMITS.name }),
  /** Defaults to `LEAD` on the server. */
  lifecycle: boundedOpenEnum(LIFECYCLE_VALUES).optional(),
  /** E-mail address. */
  email: z.email().max(INPUT_LIMITS.email).optional(),
  /** Phone number, as entered. */
  phone: boundedText({ min: 1, max: INPUT_LIMITS.phone }).optional(),
});

/**
 * What `client.contacts.create()` takes.
 *
 * @example
 * ```ts
 * const input: CreateContactInput = { firstName: 'Ada', lastName: 'Lovelace', lifecycle: 'LEAD' };
 * const contact = await client.contacts.create(input);
 * ```
 */
export type CreateContactInput = z.input<typeof createContactInputSchema>;

/**
 * Schema of the body of `PATCH /api/contacts/:id`: every field optional; `null` removes the
 * optional `email` or `phone`.
 *
 * @example
 * ```ts
 * const patch = updateContactInputSchema.parse({ lifecycle: 'PATIENT', phone: null });
 * ```
 */
export const updateContactInputSchema = z.strictObject({
  /** New given name. */
  firstName: boundedText({ min: 1, max: INPUT_LIMITS.name }).optional(),
  /** New family name. */
  lastName: boundedText({ min: 1, max: INPUT_LIMITS.name }).optional(),
  /** New lifecycle. */
  lifecycle: boundedOpenEnum(LIFECYCLE_VALUES).optional(),
  /** New e-mail address; `null` removes it. */
  email: z.email().max(INPUT_LIMITS.email).nullable().optional(),
  /** New phone number; `null` removes it. */
  phone: boundedText({ min: 1, max: INPUT_LIMITS.phone }).nullable().optional(),
});

/**
 * What `client.contacts.update()` takes.
 *
 * @example
 * ```ts
 * const patch: UpdateContactInput = { lifecycle: 'PATIENT' };
 * await client.contacts.update('con_01J…', patch);
 * ```
 */
export type UpdateContactInput = z.input<typeof updateContactInputSchema>;

/**
 * Schema of a page of `GET /api/contacts`: `{ "contacts": [...] }`.
 *
 * @example
 * ```ts
 * const { contacts } = contactListSchema.parse(await response.json());
 * ```
 */
export const contactListSchema = z.looseObject({
  /** The contacts of the page, in `createdAt, id` order. */
  contacts: z.array(contactSchema),
  /**
   * Pass it back as `cursor` (with the same limit, sort and filters) for the next page; `null`
   * on the last page. Absent from services older than the keyset lists.
   */
  nextCursor: z.string().nullable().optional(),
});

/**
 * A page of contacts as the service sends it.
 *
 * @example
 * ```ts
 * const body: ContactList = { contacts: [] };
 * ```
 */
export type ContactList = z.infer<typeof contactListSchema>;

import { APIPromise } from '../api-promise.js';
import { ConfigurationError } from '../follow-up-error.js';
import type { HttpClient } from '../internal/http-client.js';
import { checkOneOf, checkText } from '../internal/list-params.js';
import type { KeysetPage } from '../keyset-page.js';
import type { PagePromise } from '../page-promise.js';
import type { RequestOptions } from '../request-options.js';
import {
  type Contact,
  type CreateContactInput,
  contactListSchema,
  contactSchema,
  type Lifecycle,
  type UpdateContactInput,
} from '../schemas/contact.js';
import { type ContactErasure, contactErasureSchema } from '../schemas/contact-erasure.js';
import {
  type ContactBatchResult,
  contactBatchResponseSchema,
  type UpsertContactInput,
} from '../schemas/contact-sync.js';
import { CONTACT_BATCH_MAX } from '../wire/limits.js';
import { ContactSync, type ContactSyncParams } from './contact-sync.js';
import { CrudResource, type KeysetListParams, keysetList, pathId } from './crud-resource.js';

/**
 * Options of `client.contacts.upsertMany()`.
 *
 * @example
 * ```ts
 * const params: UpsertManyParams = { onProgress: ({ done, total }) => console.log(`${done}/${total}`) };
 * ```
 */
export interface UpsertManyParams {
  /** Items per request, 1 to 200 (default 200). */
  batchSize?: number;
  /** Called after each request with how many items are done, of how many. */
  onProgress?: (progress: { done: number; total: number }) => void;
}

/**
 * Parameters of `client.contacts.list()`: paging (`limit`, `cursor` or `offset`), `sort`,
 * `updatedSince`, and the contact filters. Filters combine: every one given must hold.
 *
 * @example
 * ```ts
 * const params: ContactListParams = { lifecycle: ['LEAD', 'PROSPECT'], q: 'ada', sort: '-createdAt' };
 * for await (const contact of client.contacts.list(params)) console.log(contact.email);
 * ```
 */
export interface ContactListParams extends KeysetListParams {
  /** Only contacts in this lifecycle stage, or in any of these (up to 20). */
  lifecycle?: Lifecycle | readonly Lifecycle[];
  /** Only contacts with exactly this e-mail address, compared case-insensitively. */
  email?: string;
  /**
   * A case-insensitive prefix of the first name, the last name or the e-mail address
   * (1 to 100 characters).
   */
  q?: string;
}

/**
 * `client.contacts`: list, get, create, update, delete, erase and count contacts.
 *
 * @example
 * ```ts
 * for await (const contact of client.contacts.list({ limit: 200 })) console.log(contact.id);
 * const total = await client.contacts.count();
 * ```
 */
export class Contacts extends CrudResource<
  Contact,
  CreateContactInput,
  UpdateContactInput,
  ContactListParams,
  KeysetPage<Contact>
> {
  /** @internal */
  constructor(http: HttpClient) {
    super(http, {
      path: '/api/contacts',
      key: 'contacts',
      itemSchema: contactSchema,
      listSchema: contactListSchema,
    });
  }

  /**
   * One page (await it) or every contact (iterate it), filtered and sorted as asked. Pages after
   * the first are fetched by cursor, each at the cost of the first; the sort and filters go with
   * every page.
   *
   * @throws {@link ConfigurationError} at once for a bad parameter, or `cursor` with `offset`.
   * @example
   * ```ts
   * const patients = await client.contacts.list({ lifecycle: 'PATIENT', limit: 200 });
   * for await (const contact of client.contacts.list({ q: 'lov', sort: '-createdAt' })) {
   *   console.log(contact.lastName);
   * }
   * ```
   */
  override list(
    params?: ContactListParams,
    options?: RequestOptions,
  ): PagePromise<KeysetPage<Contact>, Contact> {
    return keysetList<Contact>(
      this.http,
      { path: '/api/contacts', key: 'contacts', schema: contactListSchema },
      params,
      {
        lifecycle: checkOneOf('lifecycle', params?.lifecycle),
        email: checkText('email', params?.email, 320),
        q: checkText('q', params?.q, 100),
      },
      options,
    );
  }

  /**
   * A change sync: every contact created, changed or deleted after a position (a cursor kept
   * from an earlier sync), in commit order, exactly once even while writes continue
   * (`GET /api/contacts/changes`). Keep `change.cursor` or `sync.position` to resume.
   *
   * @throws {@link ConfigurationError} at once for a bad parameter.
   * @example
   * ```ts
   * const sync = client.contacts.sync({ cursor: saved });
   * for await (const change of sync) {
   *   if (change.type === 'changed') replica.set(change.contact.id, change.contact);
   *   else replica.delete(change.id);
   * }
   * saved = sync.position;
   * ```
   */
  sync(params?: ContactSyncParams, options?: RequestOptions): ContactSync {
    return new ContactSync(this.http, params, options);
  }

  /**
   * Creates or updates any number of contacts by e-mail address (`POST /api/contacts/batch`, up
   * to 200 per request, one request after the other). Resolves to one result per item, `index`
   * counting from the first item of `items`: `created` or `updated` with the contact, or
   * `invalid` with what is wrong (nothing is written for it). Each request carries its own
   * `Idempotency-Key` (derived from `options.idempotencyKey` when given), so retries never write
   * twice. When a request fails, the error says which items were done (`error.message`), and
   * the results so far are lost with it: send the rest again (a repeated upsert changes nothing).
   *
   * @example
   * ```ts
   * const results = await client.contacts.upsertMany(rows, {
   *   onProgress: ({ done, total }) => console.log(`${done} of ${total}`),
   * });
   * const invalid = results.filter((result) => result.result === 'invalid');
   * ```
   */
  async upsertMany(
    items: readonly UpsertContactInput[],
    params?: UpsertManyParams,
    options?: RequestOptions,
  ): Promise<ContactBatchResult[]> {
    if (!Array.isArray(items)) {
      throw new ConfigurationError({ message: 'items must be an array of contacts.' });
    }
    const size = params?.batchSize ?? CONTACT_BATCH_MAX;
    if (!Number.isInteger(size) || size < 1 || size > CONTACT_BATCH_MAX) {
      throw new ConfigurationError({
        message: `batchSize must be a whole number from 1 to ${CONTACT_BATCH_MAX}.`,
      });
    }
    const results: ContactBatchResult[] = [];
    for (let start = 0; start < items.length; start += size) {
      const chunk = items.slice(start, start + size);
      const chunkOptions =
        options?.idempotencyKey === undefined
          ? options
          : { ...options, idempotencyKey: `${options.idempotencyKey}-${start / size}` };
      let data: { results: ContactBatchResult[] };
      try {
        ({ data } = await this.http.request({
          method: 'POST',
          path: '/api/contacts/batch',
          body: { contacts: chunk },
          schema: contactBatchResponseSchema,
          options: chunkOptions,
        }));
      } catch (error) {
        if (error instanceof Error && start > 0) {
          error.message += ` Items 0 to ${start - 1} were upserted; send the rest again.`;
        }
        throw error;
      }
      for (const result of data.results) results.push({ ...result, index: result.index + start });
      params?.onProgress?.({ done: start + chunk.length, total: items.length });
    }
    return results;
  }

  /**
   * Erases a person (`POST /api/contacts/{id}/erase`, capability `contacts.delete`): deletes the
   * contact and its deals as `delete()` does, then replaces every stored copy of its values by
   * `"[erased]"` (its events and their `previousAttributes`, its deals' titles, webhook bodies
   * pending and sent and their stored answers, audit details, inbox messages from its e-mail
   * addresses, stored answers of idempotent requests), in one transaction, keeping ids, kinds
   * and times. Subscribers receive `contact.erased` with the id only. EHR receipts that mention
   * the contact are kept as received, and listed in `kept.ehrReceipts`.
   *
   * A contact deleted earlier can be erased too, as long as stored events still carry its id;
   * erasing again answers zero counts.
   *
   * @throws {@link NotFoundError} when no contact and no stored event has this id.
   * @throws {@link PermissionDeniedError} without `contacts.delete` (ADMIN only).
   * @example
   * ```ts
   * const erasure = await client.contacts.erase('con_01J…');
   * console.log(erasure.erased.events, 'events erased;', erasure.kept.ehrReceipts, 'receipts kept');
   * ```
   */
  erase(id: string, options?: RequestOptions): APIPromise<ContactErasure> {
    return new APIPromise(
      this.http.request({
        method: 'POST',
        path: `/api/contacts/${pathId(id)}/erase`,
        schema: contactErasureSchema,
        options,
      }),
    );
  }

  /**
   * How many contacts there are (`GET /api/contacts/count`, service v1.1).
   *
   * @example
   * ```ts
   * const total: number = await client.contacts.count();
   * ```
   */
  count(options?: RequestOptions): APIPromise<number> {
    return this.requestCount(options);
  }
}

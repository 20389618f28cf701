import type { APIPromise } from '../api-promise.js';
import type { RequestOptions } from '../client-options.js';
import type { HttpClient } from '../internal/http-client.js';
import {
  type Contact,
  type CreateContactInput,
  contactListSchema,
  contactSchema,
  type UpdateContactInput,
} from '../schemas/contact.js';
import { CrudResource } from './crud-resource.js';

/**
 * `client.contacts`: list, get, create, update, delete and count contacts.
 *
 * @example
 * ```ts
 * for await (const contact of client.contacts.list({ limit: 200 })) console.log(contact.id);
 * const total = await client.contacts.count();
 * ```
 */
export class Contacts extends CrudResource<Contact, CreateContactInput, UpdateContactInput> {
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

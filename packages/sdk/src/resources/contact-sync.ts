import { ConfigurationError, FollowUpError } from '../follow-up-error.js';
import type { HttpClient } from '../internal/http-client.js';
import { checkCursor, checkInstant, checkLimit } from '../internal/list-params.js';
import type { RequestOptions } from '../request-options.js';
import { type ContactChange, contactChangeListSchema } from '../schemas/contact-sync.js';
import { LIST_LIMITS } from '../wire/limits.js';

/**
 * Where `client.contacts.sync()` starts: a `cursor` kept from an earlier sync, or for a first
 * sync `updatedSince` (or neither: from the first contact ever).
 *
 * @example
 * ```ts
 * const params: ContactSyncParams = { cursor: await store.get('contacts-cursor') };
 * ```
 */
export interface ContactSyncParams {
  /** A `change.cursor` or `sync.position` of an earlier sync. */
  cursor?: string;
  /** For a first sync: start with the changes at or after this time. Not with `cursor`. */
  updatedSince?: string | Date;
  /** Changes per request, 1 to 200 (default 200). */
  limit?: number;
}

/**
 * A change sync of contacts: iterate it for every change after its starting point, in commit
 * order, until caught up; creates and updates come as `changed` (with the contact as it is now),
 * deletions as `deleted`. Each change carries the `cursor` just after it, and
 * {@link ContactSync.position} is where to resume next time. Nothing is missed or repeated even
 * while writes continue on the server.
 *
 * @example
 * ```ts
 * const sync = client.contacts.sync({ cursor: saved });
 * for await (const change of sync) {
 *   if (change.type === 'changed') await db.upsert(change.contact);
 *   else await db.remove(change.id);
 *   saved = change.cursor; // safe to persist after each change
 * }
 * saved = sync.position; // also moves on when there was nothing new
 * ```
 */
export class ContactSync implements AsyncIterable<ContactChange> {
  readonly #http: HttpClient;
  readonly #limit: number;
  readonly #updatedSince: string | undefined;
  readonly #options: RequestOptions | undefined;
  #position: string | undefined;
  #started = false;

  /** @internal */
  constructor(
    http: HttpClient,
    params: ContactSyncParams | undefined,
    options: RequestOptions | undefined,
  ) {
    this.#http = http;
    this.#limit = checkLimit(params?.limit ?? LIST_LIMITS.maxLimit);
    this.#position = checkCursor(params?.cursor);
    this.#updatedSince = checkInstant('updatedSince', params?.updatedSince);
    if (this.#position !== undefined && this.#updatedSince !== undefined) {
      throw new ConfigurationError({ message: 'cursor and updatedSince cannot be used together.' });
    }
    this.#options = options;
  }

  /**
   * Where to resume: the cursor after the last change handed out, or after the whole feed once
   * the iteration ended caught up. `undefined` before the first page of a first sync.
   */
  get position(): string | undefined {
    return this.#position;
  }

  /**
   * Every change, fetched a page at a time; ends when the feed is caught up. A sync is iterated
   * once; start another with `client.contacts.sync({ cursor: sync.position })`.
   */
  async *[Symbol.asyncIterator](): AsyncGenerator<ContactChange, void, undefined> {
    if (this.#started) {
      throw new FollowUpError({
        code: 'sync_already_iterated',
        message: 'This sync was already iterated; start another from its position.',
      });
    }
    this.#started = true;
    let more = true;
    while (more) {
      const query =
        this.#position === undefined
          ? { limit: this.#limit, updatedSince: this.#updatedSince }
          : { limit: this.#limit, cursor: this.#position };
      let page: { changes: ContactChange[]; nextCursor: string; hasMore: boolean };
      try {
        ({ data: page } = await this.#http.request({
          method: 'GET',
          path: '/api/contacts/changes',
          query,
          schema: contactChangeListSchema,
          options: this.#options,
        }));
      } catch (error) {
        if (FollowUpError.isInstance(error) && error.resumeFrom === undefined) {
          error.resumeFrom = this.#position === undefined ? {} : { cursor: this.#position };
        }
        throw error;
      }
      for (const change of page.changes) {
        this.#position = change.cursor;
        yield change;
      }
      this.#position = page.nextCursor;
      more = page.hasMore;
    }
  }
}

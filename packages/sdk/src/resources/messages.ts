import type { HttpClient } from '../internal/http-client.js';
import type { OffsetPage } from '../offset-page.js';
import type { PagePromise } from '../page-promise.js';
import type { RequestOptions } from '../request-options.js';
import { type InboxMessage, inboxMessageListSchema } from '../schemas/inbox-message.js';
import { type ListParams, offsetList } from './crud-resource.js';

/**
 * `client.messages`: the inbox messages stored by the inbox webhook.
 *
 * @example
 * ```ts
 * for await (const message of client.messages.list()) console.log(message.from, message.subject);
 * ```
 */
export class Messages {
  readonly #http: HttpClient;

  /** @internal */
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /**
   * One page (await it) or every message (iterate it).
   *
   * @example
   * ```ts
   * const page = await client.messages.list({ limit: 100 });
   * ```
   */
  list(
    params?: ListParams,
    options?: RequestOptions,
  ): PagePromise<OffsetPage<InboxMessage>, InboxMessage> {
    return offsetList<InboxMessage>(
      this.#http,
      { path: '/api/messages', key: 'messages', schema: inboxMessageListSchema },
      params,
      options,
    );
  }
}

import { APIPromise } from '../api-promise.js';
import { ConfigurationError } from '../follow-up-error.js';
import type { HttpClient } from '../internal/http-client.js';
import type { RequestOptions } from '../request-options.js';
import {
  type InboxSendInput,
  type InboxSendResult,
  inboxSendResultSchema,
} from '../schemas/inbox-message.js';
import { INBOX_SECRET_HEADER } from '../wire/secret-headers.js';

/**
 * Options of `client.inbox.send()`: the inbox webhook secret, and the usual call options.
 *
 * @example
 * ```ts
 * const options: InboxSendOptions = { secret: process.env.INBOX_WEBHOOK_SECRET! };
 * ```
 */
export interface InboxSendOptions extends RequestOptions {
  /**
   * The value of the service's `INBOX_WEBHOOK_SECRET`, sent as `X-Service-Webhook-Secret`.
   * Leave it out only for a server started without one, whose inbox is open (local development:
   * a server on another address refuses to start so unless told to); a server with a secret
   * answers its absence 401 `webhook_secret_invalid`, an {@link AuthenticationError}.
   */
  secret?: string;
}

/**
 * `client.inbox`: forwards an e-mail to the inbox webhook, which stores it as a message.
 *
 * @example
 * ```ts
 * const { id } = await client.inbox.send(
 *   { from: 'ada@example.com', subject: 'Re: appointment', text: 'Thursday works.' },
 *   { secret: process.env.INBOX_WEBHOOK_SECRET! },
 * );
 * ```
 */
export class Inbox {
  readonly #http: HttpClient;

  /** @internal */
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /**
   * Sends one message (`POST /api/inbox/webhook`). It authenticates with the secret header only:
   * the bearer token is not sent. A wrong secret, or none where the server has one, is an
   * {@link AuthenticationError} (`webhook_secret_invalid`); without `secret` no header is sent,
   * for a server whose inbox is open.
   *
   * @example
   * ```ts
   * await client.inbox.send({ from, subject }, { secret });
   * ```
   */
  send(body: InboxSendInput, options: InboxSendOptions = {}): APIPromise<InboxSendResult> {
    const { secret, ...requestOptions } = options ?? {};
    // A header value: visible ASCII and spaces only (the message never repeats the secret).
    if (
      secret !== undefined &&
      (typeof secret !== 'string' || !/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(secret))
    ) {
      throw new ConfigurationError({
        message:
          'inbox.send { secret } is the value of the service INBOX_WEBHOOK_SECRET, in visible ASCII characters.',
      });
    }
    return new APIPromise(
      this.#http.request({
        method: 'POST',
        path: '/api/inbox/webhook',
        body,
        headers: secret === undefined ? {} : { [INBOX_SECRET_HEADER]: secret },
        authenticate: false,
        schema: inboxSendResultSchema,
        options: requestOptions,
      }),
    );
  }
}

import { APIPromise } from '../api-promise.js';
import type { HttpClient } from '../internal/http-client.js';
import type { RequestOptions } from '../request-options.js';
import {
  type PortalLink,
  type PortalLinkInput,
  portalLinkSchema,
} from '../schemas/webhook-portal.js';

/**
 * `client.webhookPortal`: one-time links into the subscriber portal, where a subscriber (a
 * customer, a partner, a team) manages its own webhook endpoints and deliveries without an
 * account. Needs a token with `webhooks.manage` (ADMIN).
 *
 * @example
 * ```ts
 * const { url } = await client.webhookPortal.createLink({ subscriber: 'acme' });
 * await sendToCustomer(url);
 * ```
 */
export class WebhookPortal {
  readonly #http: HttpClient;

  /** @internal */
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /**
   * Makes a one-time portal link for a subscriber (`POST /api/webhook-portal/links`). The `url`
   * is answered this once (the server keeps only its hash); opened and confirmed, it starts an
   * 8-hour portal session that sees only that subscriber's endpoints and deliveries.
   *
   * @throws {@link ValidationError} for a bad `subscriber` or `expiresInMinutes` (`error.body.errors`
   *   names it).
   * @example
   * ```ts
   * const link = await client.webhookPortal.createLink({ subscriber: 'acme', expiresInMinutes: 30 });
   * console.log(link.url, 'until', link.expiresAt);
   * ```
   */
  createLink(body: PortalLinkInput, options?: RequestOptions): APIPromise<PortalLink> {
    return new APIPromise(
      this.#http.request({
        method: 'POST',
        path: '/api/webhook-portal/links',
        body,
        schema: portalLinkSchema,
        options,
      }),
    );
  }
}

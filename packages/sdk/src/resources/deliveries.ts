import { APIPromise } from '../api-promise.js';
import type { HttpClient } from '../internal/http-client.js';
import type { RequestOptions } from '../request-options.js';
import { type DeliveryAttempt, deliveryAttemptListSchema } from '../schemas/delivery-attempt.js';
import { pathId } from './crud-resource.js';

/**
 * `client.deliveries`: what happened to the webhooks the server sent. Needs an ADMIN token.
 *
 * @example
 * ```ts
 * const attempts = await client.deliveries.attempts('dlv_01J…');
 * const last = attempts.at(-1);
 * if (last?.status !== 200) console.log(last?.error ?? last?.responseBody);
 * ```
 */
export class Deliveries {
  readonly #http: HttpClient;

  /** @internal */
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /**
   * Every attempt of one delivery (`GET /api/deliveries/:id/attempts`), oldest first: when it
   * started, how long it took, the subscriber's status or why there was none, and the first 4 KiB
   * of its answer. The delivery id is a webhook's `X-Service-Delivery` (and `webhook-id`).
   *
   * @throws {@link NotFoundError} when no delivery has this id; {@link PermissionDeniedError}
   *   for a token without ADMIN's `webhooks.manage`; {@link ConfigurationError} for an id that is
   *   not one path segment, before any request.
   * @example
   * ```ts
   * for (const attempt of await client.deliveries.attempts(deliveryId)) {
   *   console.log(attempt.startedAt, attempt.status ?? attempt.error, `${attempt.durationMs} ms`);
   * }
   * ```
   */
  attempts(deliveryId: string, options?: RequestOptions): APIPromise<DeliveryAttempt[]> {
    const path = `/api/deliveries/${pathId(deliveryId)}/attempts`;
    return new APIPromise(
      this.#http
        .request({ method: 'GET', path, schema: deliveryAttemptListSchema, options })
        .then(({ data, response, requestId }) => ({
          // With validation off a broken body may lack the array: no attempts rather than a TypeError.
          data: Array.isArray(data?.attempts) ? data.attempts : [],
          response,
          requestId,
        })),
    );
  }
}

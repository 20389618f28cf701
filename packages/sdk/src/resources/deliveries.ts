import { APIPromise } from '../api-promise.js';
import type { CursorPage } from '../cursor-page.js';
import type { HttpClient } from '../internal/http-client.js';
import { cursorLoader } from '../internal/list-loaders.js';
import { checkCursor, checkInstant, checkLimit, checkText } from '../internal/list-params.js';
import { PagePromise } from '../page-promise.js';
import type { RequestOptions } from '../request-options.js';
import {
  type Delivery,
  type DeliveryDetail,
  type DeliveryList,
  deliveryDetailSchema,
  deliveryListSchema,
  deliverySchema,
  type RetryDeliveryInput,
} from '../schemas/delivery.js';
import { type DeliveryAttempt, deliveryAttemptListSchema } from '../schemas/delivery-attempt.js';
import type { OpenEnum } from '../schemas/open-enum.js';
import type { WebhookEventKind } from '../wire/event-kinds.js';
import { INPUT_LIMITS } from '../wire/limits.js';
import { pathId } from './crud-resource.js';

/**
 * Parameters of `client.deliveries.list()`.
 *
 * @example
 * ```ts
 * const params: DeliveryListParams = { endpoint: 'we_01J…', state: 'dead' };
 * ```
 */
export interface DeliveryListParams {
  /** Only the deliveries to this endpoint (`we_…`). */
  endpoint?: string;
  /** Only deliveries in this state. */
  state?: 'pending' | 'delivered' | 'dead';
  /** Only deliveries of this event kind (or `webhook.test`). */
  kind?: OpenEnum<WebhookEventKind | 'webhook.test'>;
  /** Only deliveries queued at or after this time (a `Date` or an ISO 8601 string). */
  createdAfter?: string | Date;
  /** Only deliveries queued before this time (a `Date` or an ISO 8601 string). */
  createdBefore?: string | Date;
  /** Deliveries per page, 1 to 200 (default 50). */
  limit?: number;
  /** Where to start: the `nextCursor` of an earlier page, with the same filters. */
  cursor?: string;
}

/**
 * `client.deliveries`: what happened to the webhooks the server sent: list them, see one with
 * the body it sends, retry one, read its attempts. Needs a token with `webhooks.manage` (ADMIN).
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
   * One page (await it) or every delivery (iterate it), oldest first.
   *
   * @throws {@link ConfigurationError} for a bad `limit`, `cursor`, filter or time, before any
   *   request.
   * @example
   * ```ts
   * for await (const delivery of client.deliveries.list({ endpoint: id, state: 'dead' })) {
   *   await client.deliveries.retry(delivery.id);
   * }
   * ```
   */
  list(
    params?: DeliveryListParams,
    options?: RequestOptions,
  ): PagePromise<CursorPage<Delivery>, Delivery> {
    const limit = checkLimit(params?.limit);
    const cursor = checkCursor(params?.cursor);
    const filters = {
      endpoint: checkText('endpoint', params?.endpoint, INPUT_LIMITS.id),
      state: checkText('state', params?.state, 20),
      kind: checkText('kind', params?.kind, 100),
      createdAfter: checkInstant('createdAfter', params?.createdAfter),
      createdBefore: checkInstant('createdBefore', params?.createdBefore),
    };
    const load = cursorLoader<Delivery, DeliveryList>({
      http: this.#http,
      path: '/api/deliveries',
      key: 'deliveries',
      schema: deliveryListSchema,
      options,
      filters: Object.fromEntries(
        Object.entries(filters).filter(([, value]) => value !== undefined),
      ) as Record<string, string>,
    });
    return new PagePromise(load(cursor === undefined ? { limit } : { cursor, limit }, 0));
  }

  /**
   * One delivery with what it sends: `body`, the exact bytes signed and posted, as text, and
   * the `headers` of its last attempt, the signatures shown as `[redacted]`.
   *
   * @throws {@link NotFoundError} when no delivery has this id.
   * @example
   * ```ts
   * const delivery = await client.deliveries.get('dlv_01J…');
   * console.log(delivery.state, delivery.attempts, JSON.parse(delivery.body).event);
   * ```
   */
  get(deliveryId: string, options?: RequestOptions): APIPromise<DeliveryDetail> {
    return new APIPromise(
      this.#http.request({
        method: 'GET',
        path: `/api/deliveries/${pathId(deliveryId)}`,
        schema: deliveryDetailSchema,
        options,
      }),
    );
  }

  /**
   * Sends a delivery again now, with the same id (the service answers 202 with it, pending). A
   * delivered one is sent again only with `{ force: true }`.
   *
   * @throws {@link ConflictError} for a delivered delivery without `force`; {@link NotFoundError}
   *   when no delivery has this id.
   * @example
   * ```ts
   * await client.deliveries.retry('dlv_01J…');
   * await client.deliveries.retry('dlv_01J…', { force: true });
   * ```
   */
  retry(
    deliveryId: string,
    body: RetryDeliveryInput = {},
    options?: RequestOptions,
  ): APIPromise<Delivery> {
    return new APIPromise(
      this.#http.request({
        method: 'POST',
        path: `/api/deliveries/${pathId(deliveryId)}/retry`,
        body,
        schema: deliverySchema,
        options,
      }),
    );
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

import { APIPromise } from '../api-promise.js';
import type { CursorPage } from '../cursor-page.js';
import type { HttpClient } from '../internal/http-client.js';
import { cursorLoader } from '../internal/list-loaders.js';
import { checkCursor, checkLimit, checkText } from '../internal/list-params.js';
import { PagePromise } from '../page-promise.js';
import type { RequestOptions } from '../request-options.js';
import {
  type CreatedWebhookEndpoint,
  createdWebhookEndpointSchema,
  type QueuedTestDelivery,
  queuedTestDeliverySchema,
  type RotatedWebhookSecret,
  rotatedWebhookSecretSchema,
  type WebhookEndpoint,
  type WebhookEndpointList,
  webhookEndpointListSchema,
  webhookEndpointSchema,
} from '../schemas/webhook-endpoint.js';
import type {
  CreateWebhookEndpointInput,
  RotateWebhookSecretInput,
  UpdateWebhookEndpointInput,
} from '../schemas/webhook-endpoint-input.js';
import {
  type QueuedReplay,
  queuedReplaySchema,
  type ReplayInput,
} from '../schemas/webhook-replay.js';
import { WEBHOOK_ENDPOINT_LIMITS } from '../wire/limits.js';
import { pathId } from './crud-resource.js';

/**
 * Parameters of `client.webhookEndpoints.list()`.
 *
 * @example
 * ```ts
 * const params: WebhookEndpointListParams = { subscriber: 'acme', state: 'failing' };
 * ```
 */
export interface WebhookEndpointListParams {
  /** Only the endpoints of this subscriber. */
  subscriber?: string;
  /** Only endpoints in this state: `active`, `failing` (active, attempts failing), `disabled`. */
  state?: 'active' | 'failing' | 'disabled';
  /** Endpoints per page, 1 to 200 (default 50). */
  limit?: number;
  /** Where to start: the `nextCursor` of an earlier page, with the same filters. */
  cursor?: string;
}

const path = '/api/webhook-endpoints';

/**
 * `client.webhookEndpoints`: the endpoints FollowUp delivers webhooks to. Needs a token with
 * `webhooks.manage` (ADMIN).
 *
 * @example
 * ```ts
 * const { id, secret } = await client.webhookEndpoints.create({
 *   url: 'https://hooks.example.com/followup',
 *   events: ['contact.created'],
 * });
 * const { deliveryId } = await client.webhookEndpoints.test(id);
 * ```
 */
export class WebhookEndpoints {
  readonly #http: HttpClient;

  /** @internal */
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /**
   * Adds an endpoint (`POST /api/webhook-endpoints`). The answer carries its signing `secret`
   * (`whsec_…`), this once: keep it to verify deliveries.
   *
   * @throws {@link ValidationError} for a field out of bounds (`error.body.errors` names it); an
   *   {@link APIError} with code `invalid_endpoint_url` (422) for a URL the server refuses.
   * @example
   * ```ts
   * const endpoint = await client.webhookEndpoints.create({ url, subscriber: 'acme' });
   * await saveSecret(endpoint.id, endpoint.secret);
   * ```
   */
  create(
    body: CreateWebhookEndpointInput,
    options?: RequestOptions,
  ): APIPromise<CreatedWebhookEndpoint> {
    return new APIPromise(
      this.#http.request({
        method: 'POST',
        path,
        body,
        schema: createdWebhookEndpointSchema,
        options,
      }),
    );
  }

  /**
   * One page (await it) or every endpoint (iterate it), oldest first; never their secrets.
   *
   * @throws {@link ConfigurationError} for a bad `limit`, `cursor` or `subscriber`, before any
   *   request.
   * @example
   * ```ts
   * for await (const endpoint of client.webhookEndpoints.list({ state: 'failing' })) {
   *   console.log(endpoint.url, endpoint.failingSince);
   * }
   * ```
   */
  list(
    params?: WebhookEndpointListParams,
    options?: RequestOptions,
  ): PagePromise<CursorPage<WebhookEndpoint>, WebhookEndpoint> {
    const limit = checkLimit(params?.limit);
    const cursor = checkCursor(params?.cursor);
    const subscriber = checkText(
      'subscriber',
      params?.subscriber,
      WEBHOOK_ENDPOINT_LIMITS.subscriber,
    );
    const state = checkText('state', params?.state, 20);
    const load = cursorLoader<WebhookEndpoint, WebhookEndpointList>({
      http: this.#http,
      path,
      key: 'webhookEndpoints',
      schema: webhookEndpointListSchema,
      options,
      filters: {
        ...(subscriber === undefined ? {} : { subscriber }),
        ...(state === undefined ? {} : { state }),
      },
    });
    return new PagePromise(load(cursor === undefined ? { limit } : { cursor, limit }, 0));
  }

  /**
   * One endpoint, never its secret.
   *
   * @throws {@link NotFoundError} when no endpoint has this id.
   * @example
   * ```ts
   * const endpoint = await client.webhookEndpoints.get('we_01J…');
   * if (endpoint.state === 'failing') console.log('failing since', endpoint.failingSince);
   * ```
   */
  get(id: string, options?: RequestOptions): APIPromise<WebhookEndpoint> {
    return new APIPromise(
      this.#http.request({
        method: 'GET',
        path: `${path}/${pathId(id)}`,
        schema: webhookEndpointSchema,
        options,
      }),
    );
  }

  /**
   * Changes the given fields; `{ state: 'disabled' }` disables the endpoint (its deliveries
   * wait) and `{ state: 'active' }` enables it again.
   *
   * @example
   * ```ts
   * await client.webhookEndpoints.update(id, { state: 'disabled' });
   * await client.webhookEndpoints.update(id, { events: ['deal.created'], rateLimit: 20 });
   * ```
   */
  update(
    id: string,
    body: UpdateWebhookEndpointInput,
    options?: RequestOptions,
  ): APIPromise<WebhookEndpoint> {
    return new APIPromise(
      this.#http.request({
        method: 'PATCH',
        path: `${path}/${pathId(id)}`,
        body,
        schema: webhookEndpointSchema,
        options,
      }),
    );
  }

  /**
   * Removes an endpoint; its pending deliveries are cancelled (the service answers 204).
   *
   * @example
   * ```ts
   * await client.webhookEndpoints.delete('we_01J…');
   * ```
   */
  delete(id: string, options?: RequestOptions): APIPromise<void> {
    return new APIPromise(
      this.#http.request<void>({ method: 'DELETE', path: `${path}/${pathId(id)}`, options }),
    );
  }

  /**
   * Gives the endpoint a new signing secret, answered this once; the previous one keeps
   * signing beside it for `overlapSeconds` (default 86,400: 24 hours; 0 ends it at once).
   *
   * @example
   * ```ts
   * const { secret } = await client.webhookEndpoints.rotateSecret(id, { overlapSeconds: 3600 });
   * ```
   */
  rotateSecret(
    id: string,
    body: RotateWebhookSecretInput = {},
    options?: RequestOptions,
  ): APIPromise<RotatedWebhookSecret> {
    return new APIPromise(
      this.#http.request({
        method: 'POST',
        path: `${path}/${pathId(id)}/rotate-secret`,
        body,
        schema: rotatedWebhookSecretSchema,
        options,
      }),
    );
  }

  /**
   * Sends the endpoint a `webhook.test` event: a delivery due at once, signed and retried like
   * any other. Follow it with `client.deliveries.get(deliveryId)`.
   *
   * @throws {@link ConflictError} when the endpoint is disabled.
   * @example
   * ```ts
   * const { deliveryId } = await client.webhookEndpoints.test(id);
   * ```
   */
  test(id: string, options?: RequestOptions): APIPromise<QueuedTestDelivery> {
    return new APIPromise(
      this.#http.request({
        method: 'POST',
        path: `${path}/${pathId(id)}/test`,
        schema: queuedTestDeliverySchema,
        options,
      }),
    );
  }

  /**
   * Sends the endpoint again the events of a time window (`POST /api/webhook-endpoints/{id}/replay`):
   * each event whose delivery to it is in one of `states` (default `failed`, `dead`, `missing`)
   * becomes a new delivery, signed, retried and rate-limited like any other. The answer says how
   * many were queued; follow them with `client.replays.get(id)`.
   *
   * @throws {@link ValidationError} for a window out of bounds (more than
   *   `REPLAY_LIMITS.maxEvents` events, `since` older than `REPLAY_LIMITS.maxAgeDays`, `until`
   *   not after `since`; `error.body.errors` names the field); {@link NotFoundError} for an
   *   unknown endpoint; {@link ConflictError} when it is disabled.
   * @example
   * ```ts
   * const since = new Date(Date.now() - 3_600_000).toISOString();
   * const { id, count } = await client.webhookEndpoints.replay(endpointId, { since });
   * ```
   */
  replay(id: string, body: ReplayInput, options?: RequestOptions): APIPromise<QueuedReplay> {
    return new APIPromise(
      this.#http.request({
        method: 'POST',
        path: `${path}/${pathId(id)}/replay`,
        body,
        schema: queuedReplaySchema,
        options,
      }),
    );
  }
}

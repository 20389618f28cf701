import { APIPromise } from '../api-promise.js';
import type { CursorPage } from '../cursor-page.js';
import { ConfigurationError } from '../follow-up-error.js';
import type { HttpClient } from '../internal/http-client.js';
import { cursorLoader } from '../internal/list-loaders.js';
import { checkCursor, checkLimit, checkOneOf, checkText } from '../internal/list-params.js';
import { PagePromise } from '../page-promise.js';
import type { RequestOptions } from '../request-options.js';
import { type EventList, eventListSchema } from '../schemas/event-list.js';
import { type EventType, eventTypeListSchema } from '../schemas/event-type.js';
import type { OpenEnum } from '../schemas/open-enum.js';
import { type WebhookEvent, webhookEventSchema } from '../schemas/webhook-event.js';
import type { WebhookEventKind } from '../wire/event-kinds.js';
import { pathId } from './crud-resource.js';

/**
 * Parameters of `client.events.list()`.
 *
 * @example
 * ```ts
 * const params: EventListParams = { kind: ['deal.created', 'deal.updated'], after: lastEventId };
 * ```
 */
export interface EventListParams {
  /**
   * Only events of this kind, or of any of these; without it, every kind the token's role may
   * read. Asking for a kind the role may not read is refused (`PermissionDeniedError`).
   */
  kind?: OpenEnum<WebhookEventKind> | readonly OpenEnum<WebhookEventKind>[];
  /** Events per page, 1 to 200 (default 50). A larger value is refused before any request. */
  limit?: number;
  /** Where to start: the `nextCursor` of an earlier page, or an error's `resumeFrom.cursor`. */
  cursor?: string;
  /**
   * Where to start: the id (`evt_…`) of the last event already processed; the walk begins with
   * the one after it. Not with `cursor`.
   */
  after?: string;
}

/**
 * `client.events`: the feed of every event the server emits (the same objects its webhooks
 * carry), in cursor pages, and the catalogue of event kinds. A subscriber that was down catches
 * up here without an endpoint.
 *
 * @example
 * ```ts
 * for await (const event of client.events.list({ after: lastEventId })) {
 *   if (event.event === 'deal.updated') console.log(event.previousAttributes);
 *   lastEventId = event.id;
 * }
 * ```
 */
export class Events {
  readonly #http: HttpClient;

  /** @internal */
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /**
   * One page (await it) or every event (iterate it), oldest first, each typed by its kind as a
   * {@link WebhookEvent} (a kind added after this SDK version comes as an
   * {@link UnknownWebhookEvent}, never an error). Each event's `id` is its event id (`evt_…`).
   * An empty page with a cursor does not end the walk.
   *
   * @throws {@link ConfigurationError} for a bad `limit`, `cursor`, `after` or `kind`, or both
   *   `cursor` and `after`, before any request.
   * @example
   * ```ts
   * const page = await client.events.list({ kind: 'contact.deleted', limit: 200 });
   * for (const event of page.items) await forget(event.data.id);
   * if (page.hasNextPage()) saveCursor(page.nextCursor);
   * ```
   */
  list(
    params?: EventListParams,
    options?: RequestOptions,
  ): PagePromise<CursorPage<WebhookEvent>, WebhookEvent> {
    const limit = checkLimit(params?.limit);
    const cursor = checkCursor(params?.cursor);
    const after = checkText('after', params?.after, 255);
    if (cursor !== undefined && after !== undefined) {
      throw new ConfigurationError({ message: 'cursor and after cannot be used together.' });
    }
    const kind = checkOneOf('kind', params?.kind);
    const load = cursorLoader<WebhookEvent, EventList>({
      http: this.#http,
      path: '/api/events',
      key: 'events',
      schema: eventListSchema,
      options,
      ...(kind === undefined ? {} : { filters: { kind } }),
      ...(after === undefined ? {} : { start: { after } }),
    });
    return new PagePromise(load(cursor === undefined ? { limit } : { cursor, limit }, 0));
  }

  /**
   * One event (`GET /api/events/{eventId}`), exactly as the feed shows it, typed by its kind as
   * a {@link WebhookEvent}; its `id` is the event id. The thin body of an endpoint whose
   * `payload` is `thin` carries this id as `eventId`. The same rules as the feed: an event of a
   * kind the token's role may not read, and one pruned past retention, are not found.
   *
   * @throws {@link NotFoundError} when the server holds no such event the role may read;
   *   {@link ValidationError} for an id that is not an event id (`evt_…`).
   * @example
   * ```ts
   * const event = await client.events.get(thin.eventId);
   * if (event.event === 'contact.created') console.log(event.data.firstName);
   * ```
   */
  get(eventId: string, options?: RequestOptions): APIPromise<WebhookEvent> {
    return new APIPromise(
      this.#http.request({
        method: 'GET',
        path: `/api/events/${pathId(eventId)}`,
        schema: webhookEventSchema,
        options,
      }),
    );
  }

  /**
   * The catalogue of event kinds (`GET /api/event-types`): each kind with what it means and the
   * JSON Schema of its body. Needs no particular role.
   *
   * @example
   * ```ts
   * const types = await client.events.types();
   * console.log(types.map((type) => type.kind)); // ['contact.created', …]
   * ```
   */
  types(options?: RequestOptions): APIPromise<EventType[]> {
    return new APIPromise(
      this.#http
        .request({ method: 'GET', path: '/api/event-types', schema: eventTypeListSchema, options })
        .then(({ data, response, requestId }) => ({
          // With validation off a broken body may lack the array: no kinds rather than a TypeError.
          data: Array.isArray(data?.eventTypes) ? data.eventTypes : [],
          response,
          requestId,
        })),
    );
  }
}

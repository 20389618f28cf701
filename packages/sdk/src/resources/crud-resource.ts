import type { z } from 'zod';
import { APIPromise } from '../api-promise.js';
import { ConfigurationError } from '../follow-up-error.js';
import type { QueryValue } from '../internal/build-request.js';
import type { HttpClient } from '../internal/http-client.js';
import { keysetLoader, offsetLoader } from '../internal/list-loaders.js';
import {
  checkCursor,
  checkInstant,
  checkLimit,
  checkOffset,
  checkSort,
} from '../internal/list-params.js';
import type { KeysetPage } from '../keyset-page.js';
import type { OffsetPage } from '../offset-page.js';
import { PagePromise } from '../page-promise.js';
import type { QueryParameter, RequestOptions } from '../request-options.js';
import { countSchema } from '../schemas/count.js';
import { INPUT_LIMITS } from '../wire/limits.js';
import type { LIST_SORT_VALUES } from '../wire/list-sorts.js';

/**
 * Parameters of an offset `list()`.
 *
 * @example
 * ```ts
 * const params: ListParams = { limit: 200, offset: 400 };
 * for await (const contact of client.contacts.list(params)) console.log(contact.id);
 * ```
 */
export interface ListParams {
  /** Items per page, 1 to 200 (default 50). A larger value is refused before any request. */
  limit?: number;
  /** Rows to skip before the first item (default 0): where a previous walk stopped. */
  offset?: number;
}

/**
 * The order of a contacts or deals list: `createdAt` (the default), `-createdAt` (newest first),
 * `updatedAt` (changes in the order they were committed) or `-updatedAt`.
 *
 * @example
 * ```ts
 * const sort: ListSort = '-createdAt';
 * ```
 */
export type ListSort = (typeof LIST_SORT_VALUES)[number];

/**
 * Parameters of a contacts or deals `list()`: those of an offset list, and a `cursor`, a `sort`
 * and `updatedSince`. Every page after the first is fetched by cursor, with the same sort and
 * filters.
 *
 * @example
 * ```ts
 * const params: KeysetListParams = { sort: 'updatedAt', updatedSince: '2026-03-01T00:00:00Z' };
 * ```
 */
export interface KeysetListParams extends ListParams {
  /**
   * Where to start: the `nextCursor` of an earlier page (or an error's `resumeFrom.cursor`),
   * with the same limit, sort and filters as then. Not together with `offset`.
   */
  cursor?: string;
  /** The order; defaults to `createdAt`. */
  sort?: ListSort;
  /** Only records changed at or after this time (a `Date` or an ISO 8601 string). */
  updatedSince?: string | Date;
}

/** @internal Starts a keyset list (contacts, deals) with its own filters. */
export function keysetList<Item>(
  http: HttpClient,
  spec: { path: string; key: string; schema: z.ZodType<unknown> },
  params: KeysetListParams | undefined,
  filters: Readonly<Record<string, QueryValue>>,
  options: RequestOptions | undefined,
): PagePromise<KeysetPage<Item>, Item> {
  const limit = checkLimit(params?.limit);
  const cursor = checkCursor(params?.cursor);
  if (cursor !== undefined && params?.offset !== undefined) {
    throw new ConfigurationError({ message: 'cursor and offset cannot be used together.' });
  }
  const offset = checkOffset(params?.offset);
  const load = keysetLoader<Item, unknown>({
    http,
    ...spec,
    options,
    filters: {
      sort: checkSort(params?.sort),
      updatedSince: checkInstant('updatedSince', params?.updatedSince),
      ...filters,
    },
  });
  return new PagePromise(
    load(cursor === undefined ? { offset, limit } : { offset, limit, cursor }),
  );
}

/** @internal What a {@link CrudResource} is built from. */
export interface CrudResourceSpec<Item> {
  readonly path: string;
  readonly key: string;
  readonly itemSchema: z.ZodType<Item>;
  readonly listSchema: z.ZodType<unknown>;
}

/**
 * @internal Checks an id and returns it encoded for a path. An id is one path segment: `.`,
 * `..`, a `/` or a `\\` could make the request reach another path than the one meant, so they are
 * refused before any request, like an id longer than the service accepts.
 */
export function pathId(id: unknown): string {
  if (typeof id !== 'string' || id.length === 0) {
    throw new ConfigurationError({ message: 'id must be a non-empty string.' });
  }
  if (id === '.' || id === '..' || /[/\\]/.test(id) || id.length > INPUT_LIMITS.id) {
    throw new ConfigurationError({
      message: `id must be one path segment: not . or .., without / or \\, at most ${INPUT_LIMITS.id} characters.`,
    });
  }
  return encodeURIComponent(id);
}

/** @internal Starts an offset list. */
export function offsetList<Item>(
  http: HttpClient,
  spec: { path: string; key: string; schema: z.ZodType<unknown> },
  params: ListParams | undefined,
  options: RequestOptions | undefined,
): PagePromise<OffsetPage<Item>, Item> {
  const limit = checkLimit(params?.limit);
  const offset = checkOffset(params?.offset);
  const load = offsetLoader<Item, unknown>({ http, ...spec, options });
  return new PagePromise(load({ offset, limit }));
}

/**
 * A collection with the five usual calls: `list`, `get`, `create`, `update`, `delete`
 * (`client.sequences`, `client.campaigns`, `client.users`, and the base of `client.contacts` and
 * `client.deals`).
 *
 * @example
 * ```ts
 * const sequence = await client.sequences.create({ name: 'Onboarding' });
 * await client.sequences.update(sequence.id, { status: 'ACTIVE' });
 * for await (const s of client.sequences.list()) console.log(s.name);
 * await client.sequences.delete(sequence.id);
 * ```
 */
export class CrudResource<
  Item,
  CreateInput,
  UpdateInput,
  Params extends ListParams = ListParams,
  P extends OffsetPage<Item> = OffsetPage<Item>,
> {
  /** @internal */
  protected readonly http: HttpClient;
  readonly #spec: CrudResourceSpec<Item>;

  /** @internal */
  constructor(http: HttpClient, spec: CrudResourceSpec<Item>) {
    this.http = http;
    this.#spec = spec;
  }

  /**
   * `GET <path>/count` (service v1.1), for the resources that have it: what their `count()`
   * calls, with the list filters it was given (already checked), if any.
   */
  protected requestCount(
    options: RequestOptions | undefined,
    filters: Readonly<Record<string, QueryParameter>> = {},
  ): APIPromise<number> {
    const path = `${this.#spec.path}/count`;
    return new APIPromise(
      this.http
        .request({ method: 'GET', path, query: filters, schema: countSchema, options })
        .then(({ data, response, requestId }) => ({ data: data.count, response, requestId })),
    );
  }

  /**
   * One page (await it) or every item (iterate it), ordered by `createdAt, id`.
   *
   * @throws {@link ConfigurationError} at once for a `limit` outside 1..200 or a negative offset.
   * @example
   * ```ts
   * const page = await client.users.list({ limit: 20 });
   * for await (const user of client.users.list({ limit: 200 })) console.log(user.email);
   * ```
   */
  list(params?: Params, options?: RequestOptions): PagePromise<P, Item> {
    const { path, key, listSchema } = this.#spec;
    // Resources with other pages (contacts, deals) override list().
    return offsetList<Item>(
      this.http,
      { path, key, schema: listSchema },
      params,
      options,
    ) as unknown as PagePromise<P, Item>;
  }

  /**
   * One record by id.
   *
   * @throws {@link NotFoundError} when there is none.
   * @example
   * ```ts
   * const contact = await client.contacts.get('con_01J…');
   * ```
   */
  get(id: string, options?: RequestOptions): APIPromise<Item> {
    const path = `${this.#spec.path}/${pathId(id)}`;
    return new APIPromise(
      this.http.request({ method: 'GET', path, schema: this.#spec.itemSchema, options }),
    );
  }

  /**
   * Creates a record. The SDK sends an `Idempotency-Key` (generated unless given in `options`),
   * so a retried create never creates twice.
   *
   * @example
   * ```ts
   * const contact = await client.contacts.create({ firstName: 'Ada', lastName: 'Lovelace' });
   * ```
   */
  create(body: CreateInput, options?: RequestOptions): APIPromise<Item> {
    return new APIPromise(
      this.http.request({
        method: 'POST',
        path: this.#spec.path,
        body,
        schema: this.#spec.itemSchema,
        options,
      }),
    );
  }

  /**
   * Changes the given fields of a record.
   *
   * @example
   * ```ts
   * const contact = await client.contacts.update('con_01J…', { lifecycle: 'PATIENT' });
   * ```
   */
  update(id: string, body: UpdateInput, options?: RequestOptions): APIPromise<Item> {
    const path = `${this.#spec.path}/${pathId(id)}`;
    return new APIPromise(
      this.http.request({ method: 'PATCH', path, body, schema: this.#spec.itemSchema, options }),
    );
  }

  /**
   * Deletes a record (the service answers 204).
   *
   * @example
   * ```ts
   * await client.contacts.delete('con_01J…');
   * ```
   */
  delete(id: string, options?: RequestOptions): APIPromise<void> {
    const path = `${this.#spec.path}/${pathId(id)}`;
    return new APIPromise(this.http.request<void>({ method: 'DELETE', path, options }));
  }
}

import type { APIPromise } from '../api-promise.js';
import type { HttpClient } from '../internal/http-client.js';
import { checkInstant, checkOneOf, checkText } from '../internal/list-params.js';
import type { KeysetPage } from '../keyset-page.js';
import type { PagePromise } from '../page-promise.js';
import type { RequestOptions } from '../request-options.js';
import {
  type CreateDealInput,
  type Deal,
  type DealStage,
  dealListSchema,
  dealSchema,
  type UpdateDealInput,
} from '../schemas/deal.js';
import { CrudResource, type KeysetListParams, keysetList } from './crud-resource.js';

/**
 * The filters of a deals list, which `client.deals.count()` takes too: every one given must
 * hold.
 *
 * @example
 * ```ts
 * const filters: DealListFilters = { q: 'renewal', stage: 'OPEN' };
 * const open: number = await client.deals.count(filters);
 * ```
 */
export interface DealListFilters {
  /** Only deals in this stage, or in any of these (up to 20). */
  stage?: DealStage | readonly DealStage[];
  /**
   * A case-insensitive prefix of the title (1 to 100 characters): `'ann'` finds "Annual plan"
   * and "annex", not "Clinic annex".
   */
  q?: string;
  /** Only deals changed at or after this instant (a `Date` or ISO 8601 text). */
  updatedSince?: Date | string;
}

/**
 * Parameters of `client.deals.list()`: paging (`limit`, `cursor` or `offset`), `sort`, and the
 * deal filters (`stage`, `q`, `updatedSince`). Filters combine: every one given must hold.
 *
 * @example
 * ```ts
 * for await (const deal of client.deals.list({ stage: ['WON', 'LOST'], sort: '-updatedAt' })) {
 *   console.log(deal.title);
 * }
 * const renewals = await client.deals.list({ q: 'renewal', stage: 'OPEN' });
 * ```
 */
export interface DealListParams extends KeysetListParams, DealListFilters {}

const filterNames = ['stage', 'q', 'updatedSince'] as const;

/** The filters as the service reads them, checked before any request. */
function checkedFilters(filters: DealListFilters | undefined) {
  return {
    stage: checkOneOf('stage', filters?.stage),
    q: checkText('q', filters?.q, 100),
  };
}

/**
 * `client.deals`: list, get, create, update, delete and count deals.
 *
 * @example
 * ```ts
 * for await (const deal of client.deals.list()) console.log(deal.title, deal.stage);
 * const total = await client.deals.count();
 * ```
 */
export class Deals extends CrudResource<
  Deal,
  CreateDealInput,
  UpdateDealInput,
  DealListParams,
  KeysetPage<Deal>
> {
  /** @internal */
  constructor(http: HttpClient) {
    super(http, {
      path: '/api/deals',
      key: 'deals',
      itemSchema: dealSchema,
      listSchema: dealListSchema,
    });
  }

  /**
   * One page (await it) or every deal (iterate it), filtered and sorted as asked; pages after the
   * first are fetched by cursor.
   *
   * @throws {@link ConfigurationError} at once for a bad parameter, or `cursor` with `offset`.
   * @example
   * ```ts
   * const won = await client.deals.list({ stage: 'WON' });
   * for await (const deal of client.deals.list({ q: 'annual', sort: '-createdAt' })) {
   *   console.log(deal.title);
   * }
   * ```
   */
  override list(
    params?: DealListParams,
    options?: RequestOptions,
  ): PagePromise<KeysetPage<Deal>, Deal> {
    return keysetList<Deal>(
      this.http,
      { path: '/api/deals', key: 'deals', schema: dealListSchema },
      params,
      checkedFilters(params),
      options,
    );
  }

  /**
   * How many deals there are (`GET /api/deals/count`, service v1.1).
   *
   * @example
   * ```ts
   * const total: number = await client.deals.count();
   * ```
   */
  count(options?: RequestOptions): APIPromise<number>;
  /**
   * How many deals a list with these filters holds, over all its pages
   * (`GET /api/deals/count?q=…&stage=…`; filters need a service that takes them on the count).
   *
   * @throws {@link ConfigurationError} at once for a bad filter.
   * @example
   * ```ts
   * const openRenewals: number = await client.deals.count({ q: 'renewal', stage: 'OPEN' });
   * ```
   */
  count(filters: DealListFilters, options?: RequestOptions): APIPromise<number>;
  count(first?: DealListFilters | RequestOptions, options?: RequestOptions): APIPromise<number> {
    // One argument is filters when it names one, else the request options it always was.
    const hasFilters =
      options !== undefined ||
      (first !== undefined && filterNames.some((name) => Object.hasOwn(first, name)));
    if (!hasFilters) return this.requestCount(first as RequestOptions | undefined);
    const filters = first as DealListFilters | undefined;
    return this.requestCount(options, {
      ...checkedFilters(filters),
      updatedSince: checkInstant('updatedSince', filters?.updatedSince),
    });
  }
}

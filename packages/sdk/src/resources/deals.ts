import type { APIPromise } from '../api-promise.js';
import type { HttpClient } from '../internal/http-client.js';
import { checkOneOf } from '../internal/list-params.js';
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
 * Parameters of `client.deals.list()`: paging (`limit`, `cursor` or `offset`), `sort`,
 * `updatedSince` and `stage`.
 *
 * @example
 * ```ts
 * for await (const deal of client.deals.list({ stage: ['WON', 'LOST'], sort: '-updatedAt' })) {
 *   console.log(deal.title);
 * }
 * ```
 */
export interface DealListParams extends KeysetListParams {
  /** Only deals in this stage, or in any of these (up to 20). */
  stage?: DealStage | readonly DealStage[];
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
      { stage: checkOneOf('stage', params?.stage) },
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
  count(options?: RequestOptions): APIPromise<number> {
    return this.requestCount(options);
  }
}

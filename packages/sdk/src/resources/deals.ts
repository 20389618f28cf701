import type { APIPromise } from '../api-promise.js';
import type { RequestOptions } from '../client-options.js';
import type { HttpClient } from '../internal/http-client.js';
import {
  type CreateDealInput,
  type Deal,
  dealListSchema,
  dealSchema,
  type UpdateDealInput,
} from '../schemas/deal.js';
import { CrudResource } from './crud-resource.js';

/**
 * `client.deals`: list, get, create, update, delete and count deals.
 *
 * @example
 * ```ts
 * for await (const deal of client.deals.list()) console.log(deal.title, deal.stage);
 * const total = await client.deals.count();
 * ```
 */
export class Deals extends CrudResource<Deal, CreateDealInput, UpdateDealInput> {
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

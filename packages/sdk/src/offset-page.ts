import { noNextPage, Page } from './page.js';

/**
 * Where an offset page starts and how many items it asks for.
 *
 * @example
 * ```ts
 * const params: OffsetPageParams = { offset: 400, limit: 200 };
 * ```
 */
export interface OffsetPageParams {
  /** How many rows to skip. */
  readonly offset: number;
  /** How many items to ask for, 1 to 200. */
  readonly limit: number;
}

/**
 * A page of a limit/offset list (contacts, deals, messages, sequences, campaigns, users). There is
 * a next page while a page comes back full; a short or empty page is the last.
 *
 * @example
 * ```ts
 * const page = await client.contacts.list({ limit: 200, offset: 400 });
 * console.log(page.offset, page.items.length, page.hasNextPage());
 * ```
 */
export class OffsetPage<Item> extends Page<Item> {
  /** The offset this page was asked for. */
  readonly offset: number;
  /** The limit this page was asked for. */
  readonly limit: number;
  readonly #load: (params: OffsetPageParams) => Promise<OffsetPage<Item>>;

  /** @internal */
  constructor(init: {
    items: readonly Item[];
    response: Response;
    params: OffsetPageParams;
    load: (params: OffsetPageParams) => Promise<OffsetPage<Item>>;
  }) {
    super(init.items, init.response);
    this.offset = init.params.offset;
    this.limit = init.params.limit;
    this.#load = init.load;
  }

  /**
   * True when this page is full (`items.length` reached `limit`): the next one may have more.
   *
   * @example
   * ```ts
   * while (page.hasNextPage()) page = await page.getNextPage();
   * ```
   */
  hasNextPage(): boolean {
    return this.items.length > 0 && this.items.length >= this.limit;
  }

  /**
   * The parameters of the next page, or `null` on the last page.
   *
   * @example
   * ```ts
   * const next = page.nextPageParams(); // { offset: 200, limit: 200 }
   * ```
   */
  nextPageParams(): OffsetPageParams | null {
    if (!this.hasNextPage()) return null;
    return { offset: this.offset + this.items.length, limit: this.limit };
  }

  /**
   * Fetches the next page.
   *
   * @example
   * ```ts
   * const next = await page.getNextPage();
   * ```
   */
  getNextPage(): Promise<OffsetPage<Item>> {
    const params = this.nextPageParams();
    if (params === null) return Promise.reject(noNextPage());
    return this.#load(params);
  }
}

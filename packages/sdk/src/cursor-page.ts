import { noNextPage, Page } from './page.js';

/**
 * What a cursor page asks for.
 *
 * @example
 * ```ts
 * const params: CursorPageParams = { cursor: 'c_abc', limit: 100 };
 * ```
 */
export interface CursorPageParams {
  /** The cursor of the page (the previous page's `nextCursor`); absent for the first page. */
  readonly cursor?: string;
  /** How many items to ask for, 1 to 200. */
  readonly limit: number;
}

/**
 * A page of a cursor list (the audit log). There is a next page while `nextCursor` is not null,
 * even when this page is empty; a cursor that comes back twice in one walk is an error
 * ({@link ResponseValidationError}) rather than an endless loop.
 *
 * @example
 * ```ts
 * const page = await client.audit.list({ limit: 200 });
 * console.log(page.items.length, page.nextCursor);
 * ```
 */
export class CursorPage<Item> extends Page<Item> {
  /** The cursor this page was asked for (`undefined` for the first page). */
  readonly cursor: string | undefined;
  /** The cursor of the next page, or `null` on the last page. */
  readonly nextCursor: string | null;
  /** The limit this page was asked for. */
  readonly limit: number;
  readonly #load: (params: CursorPageParams, depth: number) => Promise<CursorPage<Item>>;
  readonly #depth: number;

  /** @internal */
  constructor(init: {
    items: readonly Item[];
    response: Response;
    params: CursorPageParams;
    nextCursor: string | null;
    depth: number;
    load: (params: CursorPageParams, depth: number) => Promise<CursorPage<Item>>;
  }) {
    super(init.items, init.response);
    this.cursor = init.params.cursor;
    this.limit = init.params.limit;
    this.nextCursor = init.nextCursor;
    this.#depth = init.depth;
    this.#load = init.load;
  }

  /**
   * True while `nextCursor` is not null.
   *
   * @example
   * ```ts
   * while (page.hasNextPage()) page = await page.getNextPage();
   * ```
   */
  hasNextPage(): boolean {
    return this.nextCursor !== null;
  }

  /**
   * The parameters of the next page, or `null` on the last page.
   *
   * @example
   * ```ts
   * const next = page.nextPageParams(); // { cursor: 'c_abc', limit: 50 }
   * ```
   */
  nextPageParams(): CursorPageParams | null {
    if (this.nextCursor === null) return null;
    return { cursor: this.nextCursor, limit: this.limit };
  }

  /**
   * Fetches the next page.
   *
   * @example
   * ```ts
   * const next = await page.getNextPage();
   * ```
   */
  getNextPage(): Promise<CursorPage<Item>> {
    const params = this.nextPageParams();
    if (params === null) return Promise.reject(noNextPage());
    return this.#load(params, this.#depth + 1);
  }
}

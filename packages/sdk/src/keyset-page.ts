import { OffsetPage, type OffsetPageParams } from './offset-page.js';
import { noNextPage } from './page.js';

/**
 * Where a contacts or deals page starts: a `cursor` (the previous page's `nextCursor`) or an
 * `offset`, and how many items it asks for. `offset` here also counts the items of the walk
 * before this page, whichever way it was reached.
 *
 * @example
 * ```ts
 * const params: KeysetPageParams = { offset: 200, limit: 100, cursor: page.nextCursor ?? undefined };
 * ```
 */
export interface KeysetPageParams extends OffsetPageParams {
  /** The cursor of the page; absent for a first page or an offset page. */
  readonly cursor?: string;
}

/**
 * A page of contacts or deals. Such a page carries the service's `nextCursor`, and the next page
 * is fetched with it (a keyset page, at the cost of the first wherever it is), with the same
 * limit, sort and filters. Against a service older than the cursor (no `nextCursor` in the body)
 * it walks by offset, like an {@link OffsetPage}, which it extends.
 *
 * @example
 * ```ts
 * const page = await client.contacts.list({ lifecycle: 'PATIENT', limit: 200 });
 * console.log(page.items.length, page.nextCursor); // pass nextCursor as `cursor` to resume later
 * ```
 */
export class KeysetPage<Item> extends OffsetPage<Item> {
  /** The cursor this page was asked for (`undefined` for a first page or an offset page). */
  readonly cursor: string | undefined;
  /** The cursor of the next page: `null` on the last page, or when the service sent none. */
  readonly nextCursor: string | null;
  readonly #hasCursor: boolean;
  readonly #loadNext: (params: KeysetPageParams) => Promise<KeysetPage<Item>>;

  /** @internal */
  constructor(init: {
    items: readonly Item[];
    response: Response;
    params: KeysetPageParams;
    /** `undefined` when the body had no `nextCursor` (an older service). */
    nextCursor: string | null | undefined;
    load: (params: KeysetPageParams) => Promise<KeysetPage<Item>>;
  }) {
    super({ ...init, load: init.load });
    this.cursor = init.params.cursor;
    this.nextCursor = init.nextCursor ?? null;
    this.#hasCursor = init.nextCursor !== undefined;
    this.#loadNext = init.load;
  }

  /**
   * True while `nextCursor` is not null; against an older service without cursors, while the
   * page is full.
   *
   * @example
   * ```ts
   * while (page.hasNextPage()) page = await page.getNextPage();
   * ```
   */
  override hasNextPage(): boolean {
    return this.#hasCursor ? this.nextCursor !== null : super.hasNextPage();
  }

  /**
   * The parameters of the next page (with its `cursor` when the service sent one), or `null` on
   * the last page.
   *
   * @example
   * ```ts
   * const next = page.nextPageParams(); // { offset: 200, limit: 200, cursor: 'eyJ…' }
   * ```
   */
  override nextPageParams(): KeysetPageParams | null {
    if (!this.hasNextPage()) return null;
    const offset = this.offset + this.items.length;
    return this.nextCursor === null
      ? { offset, limit: this.limit }
      : { offset, limit: this.limit, cursor: this.nextCursor };
  }

  /**
   * Fetches the next page: by cursor when the service sent one, else by offset.
   *
   * @example
   * ```ts
   * const next = await page.getNextPage();
   * ```
   */
  override getNextPage(): Promise<KeysetPage<Item>> {
    const params = this.nextPageParams();
    if (params === null) return Promise.reject(noNextPage());
    return this.#loadNext(params);
  }
}

import { FollowUpError } from './follow-up-error.js';
/**
 * One page of a list: its {@link Page.items}, whether there is a next page, and how to get it.
 * A page is also async-iterable over its own items and those of every later page, fetched lazily
 * one page at a time. See {@link OffsetPage} and {@link CursorPage}.
 *
 * @example
 * ```ts
 * let page = await client.contacts.list({ limit: 100 });
 * while (true) {
 *   for (const contact of page.items) console.log(contact.id);
 *   if (!page.hasNextPage()) break;
 *   page = await page.getNextPage();
 * }
 * ```
 */
export abstract class Page<Item> implements AsyncIterable<Item> {
  /** The items of this page, in the service's order. */
  readonly items: readonly Item[];
  /** The response this page came from (its body already read). */
  readonly response: Response;

  /** @internal */
  constructor(items: readonly Item[], response: Response) {
    this.items = items;
    this.response = response;
  }

  /**
   * Whether another page may follow.
   *
   * @example
   * ```ts
   * if (page.hasNextPage()) page = await page.getNextPage();
   * ```
   */
  abstract hasNextPage(): boolean;

  /**
   * Fetches the next page, with the same options (signal, timeout) as this one. Rejects when
   * {@link Page.hasNextPage} is false.
   *
   * @example
   * ```ts
   * const second = await (await client.contacts.list()).getNextPage();
   * ```
   */
  abstract getNextPage(): Promise<Page<Item>>;

  /**
   * Every item of this page and of every later page, fetching one page at a time; breaking out
   * of the loop makes no further request.
   *
   * @example
   * ```ts
   * const page = await client.contacts.list();
   * for await (const contact of page) console.log(contact.id);
   * ```
   */
  [Symbol.asyncIterator](): AsyncIterableIterator<Item> {
    return walkItems<Item, Page<Item>>(walkPages({ promise: Promise.resolve(this) }));
  }
}

/** @internal What `getNextPage()` rejects with on the last page. */
export function noNextPage(): FollowUpError {
  return new FollowUpError({
    code: 'no_next_page',
    message: 'This is the last page; check hasNextPage() before getNextPage().',
  });
}

/** Takes the first page's promise out of its box, so that the walk does not keep it. */
function takeFirst<P>(box: { promise: Promise<P> | undefined }): Promise<P> {
  const first = box.promise as Promise<P>;
  box.promise = undefined;
  return first;
}

/**
 * Walks pages from the first one on, holding only the current page.
 *
 * @internal
 */
export async function* walkPages<Item, P extends Page<Item>>(box: {
  promise: Promise<P> | undefined;
}): AsyncGenerator<P, void, undefined> {
  // No local binding keeps the first promise (and so the first page) alive after it settles.
  let page: P = await takeFirst(box);
  yield page;
  while (page.hasNextPage()) {
    page = (await page.getNextPage()) as P;
    yield page;
  }
}

/**
 * Every item of every page. A hand-written iterator rather than an async generator: a
 * generator's `yield*` awaits once more per item, which shows on walks of 100,000 items.
 *
 * @internal
 */
export function walkItems<Item, P extends Page<Item>>(
  pages: AsyncGenerator<P, void, undefined>,
): AsyncIterableIterator<Item> {
  let items: readonly Item[] = [];
  let index = 0;
  let finished = false;
  const nextPage = async (): Promise<IteratorResult<Item, undefined>> => {
    while (index >= items.length) {
      if (finished) return { done: true, value: undefined };
      const result = await pages.next();
      if (result.done === true) {
        finished = true;
        items = [];
        return { done: true, value: undefined };
      }
      items = result.value.items;
      index = 0;
    }
    return { done: false, value: items[index++] as Item };
  };
  const iterator: AsyncIterableIterator<Item> = {
    // Not async: an item already in hand is handed over without an async function's frame.
    next(): Promise<IteratorResult<Item, undefined>> {
      if (index < items.length) {
        return Promise.resolve({ done: false, value: items[index++] as Item });
      }
      return nextPage();
    },
    async return(): Promise<IteratorResult<Item, undefined>> {
      finished = true;
      items = [];
      await pages.return();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

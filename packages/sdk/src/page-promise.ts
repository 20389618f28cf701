import type { WithResponse } from './api-promise.js';
import { type Page, walkItems, walkPages } from './page.js';

/**
 * What `list()` returns: awaitable for the first page, async-iterable over every item of every
 * page, and {@link PagePromise.pages} to walk page by page. Pages are fetched lazily, one at a
 * time, with the same signal and timeout; breaking out of a loop makes no further request. When
 * a page fails in the middle of a walk, the error's `resumeFrom` says where to start again.
 *
 * @example
 * ```ts
 * for await (const contact of client.contacts.list({ limit: 200 })) {
 *   console.log(contact.id);
 * }
 *
 * const first = await client.contacts.list();
 * for await (const page of client.contacts.list().pages()) console.log(page.items.length);
 * ```
 */
export class PagePromise<P extends Page<Item>, Item>
  implements PromiseLike<P>, AsyncIterable<Item>
{
  readonly #first: Promise<P>;

  /** @internal */
  constructor(first: Promise<P>) {
    this.#first = first;
  }

  /** Promise interface: resolves to the first page. */
  // biome-ignore lint/suspicious/noThenProperty: a PagePromise is meant to be awaited.
  then<Result1 = P, Result2 = never>(
    onfulfilled?: ((value: P) => Result1 | PromiseLike<Result1>) | null,
    onrejected?: ((reason: unknown) => Result2 | PromiseLike<Result2>) | null,
  ): Promise<Result1 | Result2> {
    return this.#first.then(onfulfilled, onrejected);
  }

  /** Promise interface. */
  catch<Result = never>(
    onrejected?: ((reason: unknown) => Result | PromiseLike<Result>) | null,
  ): Promise<P | Result> {
    return this.#first.catch(onrejected);
  }

  /** Promise interface. */
  finally(onfinally?: (() => void) | null): Promise<P> {
    return this.#first.finally(onfinally);
  }

  /**
   * The first page together with its `Response`.
   *
   * @example
   * ```ts
   * const { data: page, response } = await client.contacts.list().withResponse();
   * ```
   */
  withResponse(): Promise<WithResponse<P>> {
    return this.#first.then((page) => ({
      data: page,
      response: page.response,
      requestId: page.response.headers.get('x-request-id') ?? undefined,
    }));
  }

  /**
   * Every page, fetched one at a time.
   *
   * @example
   * ```ts
   * for await (const page of client.audit.list({ limit: 200 }).pages()) {
   *   await store(page.items);
   * }
   * ```
   */
  pages(): AsyncGenerator<P, void, undefined> {
    return walkPages<Item, P>({ promise: this.#first });
  }

  /**
   * Every item of every page, fetched one page at a time.
   *
   * @example
   * ```ts
   * for await (const deal of client.deals.list()) total += deal.amountCents;
   * ```
   */
  [Symbol.asyncIterator](): AsyncIterableIterator<Item> {
    return walkItems<Item, P>(walkPages<Item, P>({ promise: this.#first }));
  }

  /** `"PagePromise"`. */
  get [Symbol.toStringTag](): string {
    return 'PagePromise';
  }
}

/**
 * The parsed body of a call and the `Response` it came from.
 *
 * @example
 * ```ts
 * const { data, response }: WithResponse<Contact> = await client.contacts.get(id).withResponse();
 * ```
 */
export interface WithResponse<T> {
  /** The parsed, validated body. */
  readonly data: T;
  /** The HTTP response; its body has been read, its status and headers are there. */
  readonly response: Response;
  /** The server's `X-Request-Id` of this response, to quote when asking about the call. */
  readonly requestId: string | undefined;
}

/**
 * What every call returns: a promise of the parsed body, with {@link APIPromise.withResponse}
 * for the raw `Response` (status, headers such as `X-Request-Id`). The request starts at once.
 *
 * @example
 * ```ts
 * const contact = await client.contacts.get(id);
 * const { data, response } = await client.contacts.get(id).withResponse();
 * console.log(response.headers.get('x-request-id'), data.firstName);
 * ```
 */
export class APIPromise<T> implements PromiseLike<T> {
  readonly #raw: Promise<WithResponse<T>>;
  #data: Promise<T> | undefined;

  /** @internal */
  constructor(raw: Promise<WithResponse<T>>) {
    this.#raw = raw;
  }

  /**
   * The parsed body together with the `Response` it came from (already read: use its status and
   * headers).
   *
   * @example
   * ```ts
   * const { data, response } = await client.contacts.create(input).withResponse();
   * console.log(response.status); // 201
   * ```
   */
  withResponse(): Promise<WithResponse<T>> {
    return this.#raw;
  }

  #parsed(): Promise<T> {
    this.#data ??= this.#raw.then((result) => result.data);
    return this.#data;
  }

  /** Promise interface: resolves to the parsed body. */
  // biome-ignore lint/suspicious/noThenProperty: an APIPromise is meant to be awaited.
  then<Result1 = T, Result2 = never>(
    onfulfilled?: ((value: T) => Result1 | PromiseLike<Result1>) | null,
    onrejected?: ((reason: unknown) => Result2 | PromiseLike<Result2>) | null,
  ): Promise<Result1 | Result2> {
    return this.#parsed().then(onfulfilled, onrejected);
  }

  /** Promise interface. */
  catch<Result = never>(
    onrejected?: ((reason: unknown) => Result | PromiseLike<Result>) | null,
  ): Promise<T | Result> {
    return this.#parsed().catch(onrejected);
  }

  /** Promise interface. */
  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.#parsed().finally(onfinally);
  }

  /** `"APIPromise"`. */
  get [Symbol.toStringTag](): string {
    return 'APIPromise';
  }
}

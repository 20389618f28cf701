/**
 * Where a webhook handler remembers the deliveries it has handled, so that a delivery sent
 * again (a retry whose first answer was lost, or a replay) is acknowledged without running the
 * handler twice. Plug in shared storage (Redis, a database table, Workers KV) when several
 * processes receive the same endpoint's webhooks; the default, {@link MemoryDeliveryStore},
 * remembers within one process.
 *
 * `claim` must be atomic: of two concurrent claims of one id, one wins.
 *
 * @example
 * ```ts
 * // Redis (node-redis): SET NX with a time to live is an atomic claim.
 * const store: DeliveryStore = {
 *   claim: async (id, ttlMs) =>
 *     (await redis.set(`followup:delivery:${id}`, '1', { NX: true, PX: ttlMs })) === 'OK',
 *   release: async (id) => void (await redis.del(`followup:delivery:${id}`)),
 * };
 * const handler = client.webhooks.handler({ secret, store, on: { … } });
 * ```
 */
export interface DeliveryStore {
  /**
   * Claims a delivery id for `ttlMs` milliseconds: resolves `true` when this call claimed it,
   * `false` when it was already claimed (the delivery was handled, or is being handled).
   */
  claim(id: string, ttlMs: number): boolean | Promise<boolean>;
  /** Forgets a claim, so that the next attempt of the delivery is handled (the handler failed). */
  release(id: string): void | Promise<void>;
}

/**
 * Options of {@link MemoryDeliveryStore}.
 *
 * @example
 * ```ts
 * const store = new MemoryDeliveryStore({ maxEntries: 50_000 });
 * ```
 */
export interface MemoryDeliveryStoreOptions {
  /** The most ids remembered; past it the oldest claim is forgotten first. Default 10,000. */
  maxEntries?: number;
  /** The clock, in milliseconds since the epoch (`Date.now` by default; tests pass their own). */
  now?: () => number;
}

/** How many delivery ids a {@link MemoryDeliveryStore} remembers by default. */
export const DEFAULT_DELIVERY_STORE_ENTRIES = 10_000;

/**
 * A {@link DeliveryStore} in this process's memory: each claim lives for its time to live, and
 * at most `maxEntries` are kept (the oldest forgotten first), so memory stays bounded whatever
 * arrives. It dedupes within one process only, and forgets on restart.
 *
 * @example
 * ```ts
 * const handler = client.webhooks.handler({
 *   secret,
 *   store: new MemoryDeliveryStore({ maxEntries: 50_000 }),
 *   on: { 'contact.created': (event) => welcome(event.data) },
 * });
 * ```
 */
export class MemoryDeliveryStore implements DeliveryStore {
  // Insertion order is claim order: the first entry is the oldest, and expires first when every
  // claim has the same time to live.
  readonly #expiries = new Map<string, number>();
  readonly #maxEntries: number;
  readonly #now: () => number;

  /** @throws `RangeError` when `maxEntries` is not a positive whole number. */
  constructor(options: MemoryDeliveryStoreOptions = {}) {
    const maxEntries = options.maxEntries ?? DEFAULT_DELIVERY_STORE_ENTRIES;
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError('maxEntries must be a positive whole number.');
    }
    this.#maxEntries = maxEntries;
    this.#now = options.now ?? Date.now;
  }

  /** How many claims are remembered now (expired ones not yet swept included). */
  get size(): number {
    return this.#expiries.size;
  }

  /** Claims `id` for `ttlMs` ms; `false` when an unexpired claim of it exists. */
  claim(id: string, ttlMs: number): boolean {
    const now = this.#now();
    const expiry = this.#expiries.get(id);
    if (expiry !== undefined && expiry > now) return false;
    this.#expiries.delete(id);
    // Sweep expired claims from the oldest end, then make room.
    for (const [oldest, oldestExpiry] of this.#expiries) {
      if (oldestExpiry > now && this.#expiries.size < this.#maxEntries) break;
      this.#expiries.delete(oldest);
    }
    this.#expiries.set(id, now + ttlMs);
    return true;
  }

  /** Forgets the claim of `id`. */
  release(id: string): void {
    this.#expiries.delete(id);
  }
}

import type { Clock } from '../clock.js';
import type { Database } from '../storage/database.js';
import { underlyingDatabase } from '../storage/database-reachability.js';
import { TOKEN_REVOKED_CHANNEL } from '../stores/token-store.js';
import type { ServiceAccount } from './account-types.js';

/** How long a verified token is trusted from memory, by default. */
export const TOKEN_CACHE_TTL_MS = 5_000;
/** Most tokens remembered at once; the oldest is forgotten beyond. */
export const TOKEN_CACHE_MAX_ENTRIES = 10_000;

/** @internal A token that verified, as remembered. */
export interface CachedToken {
  /** The token's `tok_…` id. */
  tokenId: string;
  /** Its service account. */
  account: ServiceAccount;
  /** When it expires (Unix ms), or `null`. */
  expiresAt: number | null;
}

interface Entry extends CachedToken {
  /** When the memory of it ends (Unix ms, by the cache's clock). */
  until: number;
}

/**
 * @internal What a verified token's account and role are, kept in memory for a short time so a
 * warm request costs no lookup. It never answers for a token past its expiry, and is emptied at
 * once by every change to tokens or accounts made through an account store in this process
 * ({@link tokensChanged}), and, on PostgreSQL, by the `token_revoked` notification of a change
 * made anywhere else. While the connection that listens for those is down, it answers nothing:
 * every request goes to the database.
 */
export interface TokenCache {
  /**
   * The remembered token of `key`, or `undefined`. `version` is what {@link TokenCache.version}
   * was before the lookup that is about to be remembered.
   */
  get(key: string): CachedToken | undefined;
  /** The version a lookup starts from: a change in between keeps its result out of the cache. */
  version(): number;
  /** Remembers a token verified by a lookup that started at `version`. */
  set(key: string, token: CachedToken, version: number): void;
  /** Forgets everything (a change happened). */
  clear(): void;
  /** Settles once the listener's first connection was tried (at once on PGlite). */
  readonly ready: Promise<void>;
  /** Stops listening; the cache answers nothing afterwards. */
  close(): Promise<void>;
}

const liveCaches = new WeakMap<Database, Set<TokenCache>>();

/**
 * @internal Tells every token cache of this process on `database` that tokens or accounts
 * changed; called by the account store after the change committed. (The `token_revoked`
 * notification sent in the change's transaction tells the other instances.)
 */
export function tokensChanged(database: Database): void {
  for (const cache of liveCaches.get(underlyingDatabase(database)) ?? []) cache.clear();
}

/** Options of {@link createTokenCache}. */
export interface TokenCacheOptions {
  /** The database whose tokens it remembers; on PostgreSQL it listens on `token_revoked`. */
  database: Database;
  /** The clock of token expiry. */
  clock: Clock;
  /** How long a token is remembered; defaults to {@link TOKEN_CACHE_TTL_MS}. */
  ttlMs?: number;
  /** Most tokens remembered; defaults to {@link TOKEN_CACHE_MAX_ENTRIES}. */
  maxEntries?: number;
}

/**
 * @internal Creates a {@link TokenCache}. On PGlite (one process) it serves at once; on
 * PostgreSQL once its `token_revoked` listener is connected, and never while it is down.
 */
export function createTokenCache(options: TokenCacheOptions): TokenCache {
  const { database, clock } = options;
  const ttlMs = options.ttlMs ?? TOKEN_CACHE_TTL_MS;
  const maxEntries = options.maxEntries ?? TOKEN_CACHE_MAX_ENTRIES;
  const entries = new Map<string, Entry>();
  let version = 0;
  // Serving only while changes made elsewhere are sure to reach us.
  let serving = database.driver === 'pglite';
  let closed = false;

  const cache: TokenCache = {
    get(key) {
      if (!serving) return undefined;
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      const now = clock.now();
      if (now >= entry.until || (entry.expiresAt !== null && now >= entry.expiresAt)) {
        entries.delete(key);
        return undefined;
      }
      return entry;
    },
    version: () => version,
    get ready() {
      return stopListening.then(() => {});
    },
    set(key, token, startedAt) {
      if (!serving || startedAt !== version) return;
      if (entries.size >= maxEntries) {
        const [oldest] = entries.keys();
        if (oldest !== undefined) entries.delete(oldest);
      }
      entries.set(key, { ...token, until: clock.now() + ttlMs });
    },
    clear() {
      version++;
      entries.clear();
    },
    async close() {
      closed = true;
      serving = false;
      cache.clear();
      liveCaches.get(database)?.delete(cache);
      await (await stopListening)();
    },
  };

  let stopListening: Promise<() => Promise<void>> = Promise.resolve(async () => {});
  if (database.driver !== 'pglite' && database.listen) {
    stopListening = database
      .listen(TOKEN_REVOKED_CHANNEL, () => cache.clear(), {
        // The account store's payload is `<schema>:<id>`: another schema's tokens are not ours.
        ownSchemaOnly: true,
        onListening(listening) {
          cache.clear();
          serving = listening && !closed;
        },
      })
      .catch(() => async () => {});
  }
  // Keyed by the database itself, not a watch over it: a change through either finds the cache.
  const key = underlyingDatabase(database);
  let caches = liveCaches.get(key);
  if (!caches) {
    caches = new Set();
    liveCaches.set(key, caches);
  }
  caches.add(cache);
  return cache;
}

import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import type { WebhookSecret } from './secrets.js';

// A KeyObject per string secret saves encoding the secret and setting up the key on every call
// (about a tenth of a small verification). Bounded, oldest first out. Only secrets that passed
// normalizeSecrets get here (keyOf is called after planning), so a string found in the cache is
// known to be a valid secret: the fast path below relies on it.
const KEY_CACHE_SIZE = 64;
/** @internal The `KeyObject` of each string secret used lately (see above). */
export const keyCache = new Map<string, KeyObject>();

/** The `KeyObject` of `secret` in `cache`, made from `bytes()` the first time. */
function cachedKey(
  cache: Map<string, KeyObject>,
  secret: string,
  bytes: () => Uint8Array,
): KeyObject {
  let key = cache.get(secret);
  if (key === undefined) {
    key = createSecretKey(bytes());
    if (cache.size >= KEY_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    cache.set(secret, key);
  }
  return key;
}

function keyOf(secret: WebhookSecret): KeyObject | Uint8Array {
  if (typeof secret !== 'string') return secret;
  return cachedKey(keyCache, secret, () => Buffer.from(secret, 'utf8'));
}

// The same for the Standard Webhooks scheme, whose key is the bytes a `whsec_` secret's base64
// decodes to, not its text: a cache of its own. `createHmac` with key bytes checks whether they
// are a KeyObject the slow way (about 10 µs a call against 2 with a KeyObject, on Node 24).
const standardKeyCache = new Map<string, KeyObject>();

/**
 * @internal The key to sign or verify with for a Standard Webhooks secret, checked and decoded
 * (`bytes`) by the caller: a cached `KeyObject` for a string secret, the bytes as given otherwise.
 */
export function standardKeyOf(secret: WebhookSecret, bytes: Uint8Array): KeyObject | Uint8Array {
  if (typeof secret !== 'string') return bytes;
  return cachedKey(standardKeyCache, secret, () => bytes);
}

/** @internal The HMAC-SHA256 of `prefix` then `body` with `secret`, through `node:crypto`. */
export function hmac(secret: WebhookSecret, prefix: string, body: string | Uint8Array): Buffer {
  const mac = createHmac('sha256', keyOf(secret));
  if (prefix !== '') mac.update(prefix);
  mac.update(body);
  return mac.digest();
}

import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import type { WebhookSecret } from './secrets.js';

// A KeyObject per string secret saves encoding the secret and setting up the key on every call
// (about a tenth of a small verification). Bounded, oldest first out. Only secrets that passed
// normalizeSecrets get here (keyOf is called after planning), so a string found in the cache is
// known to be a valid secret: the fast path below relies on it.
const KEY_CACHE_SIZE = 64;
/** @internal The `KeyObject` of each string secret used lately (see above). */
export const keyCache = new Map<string, KeyObject>();

function keyOf(secret: WebhookSecret): KeyObject | Uint8Array {
  if (typeof secret !== 'string') return secret;
  let key = keyCache.get(secret);
  if (key === undefined) {
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    if (keyCache.size >= KEY_CACHE_SIZE) keyCache.delete(keyCache.keys().next().value as string);
    keyCache.set(secret, key);
  }
  return key;
}

/** @internal The HMAC-SHA256 of `prefix` then `body` with `secret`, through `node:crypto`. */
export function hmac(secret: WebhookSecret, prefix: string, body: string | Uint8Array): Buffer {
  const mac = createHmac('sha256', keyOf(secret));
  if (prefix !== '') mac.update(prefix);
  mac.update(body);
  return mac.digest();
}

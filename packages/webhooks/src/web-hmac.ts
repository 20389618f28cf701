import { bytesToHex } from './internal/hex.js';
import type { WebhookSecret } from './secrets.js';

/** @internal One encoder for every string body. */
export const encoder = new TextEncoder();

// Importing an HMAC key costs about as much as signing a small body, so keys are imported once
// per secret and kept (non-extractable) in a small cache, oldest first out. Once imported, the
// key itself is kept rather than its promise, so a verification awaits only the signing.
// String secrets are keyed by themselves, byte secrets by their content in hexadecimal (so a
// buffer changed in place gets a new key), in two maps so that the two never collide. Only
// secrets that passed normalizeSecrets get here, so a string found in its map is a valid
// secret: the fast path below relies on it.
const KEY_CACHE_SIZE = 64;
/** @internal Imported keys of string secrets, by secret (see above). */
export const stringKeyCache = new Map<string, CryptoKey | Promise<CryptoKey>>();
const bytesKeyCache = new Map<string, CryptoKey | Promise<CryptoKey>>();

function importKey(secret: WebhookSecret): CryptoKey | Promise<CryptoKey> {
  const keyCache = typeof secret === 'string' ? stringKeyCache : bytesKeyCache;
  const cacheKey = typeof secret === 'string' ? secret : bytesToHex(secret);
  const cached = keyCache.get(cacheKey);
  if (cached !== undefined) return cached;
  const raw = typeof secret === 'string' ? encoder.encode(secret) : secret.slice();
  const imported = crypto.subtle
    .importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])
    .then(
      (key) => {
        if (keyCache.get(cacheKey) === imported) keyCache.set(cacheKey, key);
        return key;
      },
      (error: unknown) => {
        keyCache.delete(cacheKey);
        throw error;
      },
    );
  if (keyCache.size >= KEY_CACHE_SIZE) keyCache.delete(keyCache.keys().next().value as string);
  keyCache.set(cacheKey, imported);
  return imported;
}

// Web Crypto has no incremental HMAC, so `${t}.` and the body must be one buffer. Allocating a
// fresh one costs as much as hashing it (fresh pages), so one scratch buffer is reused. This is
// safe because Web Crypto copies the data synchronously, before sign() returns (WebCrypto spec,
// sign(), step 2: "getting a copy of the bytes"); test/web-crypto-copy.test.ts checks it.
const SCRATCH_LIMIT = 2 * 1024 * 1024;
let scratch = new Uint8Array(0);
/** @internal The digest a header claims, on the fast path; copied by verify() like the data. */
export const claimedScratch = new Uint8Array(32);

/** @internal The scratch buffer, grown to `length` bytes (a fresh one past its limit). */
export function scratchOf(length: number): Uint8Array {
  if (length > SCRATCH_LIMIT) return new Uint8Array(length);
  if (scratch.length < length) {
    scratch = new Uint8Array(Math.min(SCRATCH_LIMIT, Math.max(length, scratch.length * 2, 4096)));
  }
  return scratch;
}

/**
 * `prefix + body` as one byte array (strings encoded as UTF-8), valid only until the next call:
 * hand it straight to `crypto.subtle`, which copies it.
 */
export function signedBytes(prefix: string, body: string | Uint8Array): Uint8Array {
  if (typeof body !== 'string') {
    if (prefix === '') return body;
    const bytes = scratchOf(prefix.length + body.byteLength);
    // The prefix is `<digits>.`, plain ASCII: one byte per character.
    encoder.encodeInto(prefix, bytes);
    bytes.set(body, prefix.length);
    return bytes.subarray(0, prefix.length + body.byteLength);
  }
  const bytes = scratchOf(prefix.length + body.length * 3);
  encoder.encodeInto(prefix, bytes);
  const { written } = encoder.encodeInto(body, bytes.subarray(prefix.length));
  return bytes.subarray(0, prefix.length + written);
}

function sign(key: CryptoKey, data: Uint8Array): Promise<ArrayBuffer> {
  return crypto.subtle.sign('HMAC', key, data as Uint8Array<ArrayBuffer>);
}

/** The HMAC-SHA256 of `data` with `secret`, through Web Crypto (its key imported once). */
export async function hmac(secret: WebhookSecret, data: Uint8Array): Promise<Uint8Array> {
  const key = importKey(secret);
  // The data is copied by sign() before it returns; awaiting a key first would let another
  // call reuse the scratch buffer, so copy it in that rare case (the first use of a secret).
  if (key instanceof Promise) {
    const copy = data.slice();
    return new Uint8Array(await sign(await key, copy));
  }
  return new Uint8Array(await sign(key, data));
}

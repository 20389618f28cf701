import { WebhookVerificationError } from './errors.js';
import { bytesToHex, hexToBytes } from './internal/hex.js';
import type { WebhookPayload } from './internal/payload.js';
import { rawPayload } from './internal/payload.js';
import type { HeadersLike } from './internal/read-header.js';
import type { WebhookSecret } from './internal/secrets.js';
import { bytesEqual } from './secrets-equal.js';
import {
  noMatchingSignature,
  planSignatureVerification,
  planSigning,
  planVendorVerification,
  type SafeVerifyResult,
  type SignOptions,
  type VendorVerifyOptions,
  type VerificationJob,
  type VerifiedSignature,
  type VerifiedVendorSignature,
  type VerifyOptions,
} from './signature-scheme.js';
import type { SignedVendorProfile } from './vendor-profiles.js';

const encoder = new TextEncoder();

// Importing an HMAC key costs about as much as signing a small body, so keys are imported once
// per secret and kept (non-extractable) in a small least-recently-used cache.
const KEY_CACHE_SIZE = 64;
const keyCache = new Map<string, Promise<CryptoKey>>();

function cacheKeyOf(secret: WebhookSecret): string {
  // Byte secrets are keyed by their content, so a buffer changed in place gets a new key.
  return typeof secret === 'string' ? `s${secret}` : `b${bytesToHex(secret)}`;
}

function importKey(secret: WebhookSecret): Promise<CryptoKey> {
  const cacheKey = cacheKeyOf(secret);
  const cached = keyCache.get(cacheKey);
  if (cached !== undefined) {
    keyCache.delete(cacheKey);
    keyCache.set(cacheKey, cached);
    return cached;
  }
  const raw = typeof secret === 'string' ? encoder.encode(secret) : secret.slice();
  const key = crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  keyCache.set(cacheKey, key);
  key.catch(() => keyCache.delete(cacheKey));
  if (keyCache.size > KEY_CACHE_SIZE) {
    const oldest = keyCache.keys().next().value as string;
    keyCache.delete(oldest);
  }
  return key;
}

/** `prefix + body` as one byte array, encoding strings as UTF-8. */
function signedBytes(prefix: string, body: string | Uint8Array): Uint8Array {
  if (typeof body === 'string') return encoder.encode(prefix + body);
  if (prefix === '') return body;
  const bytes = new Uint8Array(prefix.length + body.byteLength);
  // The prefix is `<digits>.`, plain ASCII.
  encoder.encodeInto(prefix, bytes);
  bytes.set(body, prefix.length);
  return bytes;
}

async function hmac(secret: WebhookSecret, data: Uint8Array): Promise<Uint8Array> {
  const key = await importKey(secret);
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, data as Uint8Array<ArrayBuffer>));
}

async function matchSecret(job: VerificationJob): Promise<number> {
  const data = signedBytes(job.prefix, job.body);
  const candidates = job.candidates.map(hexToBytes);
  for (let index = 0; index < job.secrets.length; index++) {
    const expected = await hmac(job.secrets[index] as WebhookSecret, data);
    for (const candidate of candidates) {
      if (bytesEqual(expected, candidate)) return index;
    }
  }
  throw noMatchingSignature(job);
}

/**
 * Signs a payload the way FollowUp signs its outbound webhooks, with Web Crypto, and resolves to
 * the value of the `X-Service-Signature` header: `t=<unix seconds>,v1=<hex>`, the lowercase
 * HMAC-SHA256 of the bytes of `` `${t}.${payload}` ``, one `v1=` per secret.
 *
 * The same result as the synchronous `signPayload` of `@followup/webhooks`.
 *
 * @param payload - The exact body that will be sent: a string or its bytes.
 * @param options - The secret (or secrets) and, optionally, the timestamp to sign.
 * @throws {@link WebhookVerificationError} `invalid_secret` or `payload_not_raw` (as a rejection).
 *
 * @example
 * ```ts
 * import { signPayload } from '@followup/webhooks/web';
 *
 * const signature = await signPayload(body, { secret: env.FOLLOWUP_WEBHOOK_SECRET });
 * ```
 */
export async function signPayload(payload: WebhookPayload, options: SignOptions): Promise<string> {
  const body = rawPayload(payload);
  const { secrets, timestamp } = planSigning(options);
  const data = signedBytes(`${timestamp}.`, body);
  let header = `t=${timestamp}`;
  for (const secret of secrets) header += `,v1=${bytesToHex(await hmac(secret, data))}`;
  return header;
}

/**
 * Verifies a FollowUp webhook with Web Crypto (Cloudflare Workers, Vercel Edge, Deno, Bun,
 * browsers): the `X-Service-Signature` header against the raw body, in constant time, and the
 * timestamp against a tolerance (300 s by default, in both directions). Keys are imported once
 * per secret and cached.
 *
 * Same rules and results as the synchronous `verifySignature` of `@followup/webhooks`.
 *
 * @param payload - The raw body: `await request.arrayBuffer()` or `await request.text()`.
 * @param header - The header value, or the request's `Headers`.
 * @param options - The secret or secrets, and the timestamp options.
 * @returns The signed timestamp and the index of the secret that matched.
 * @throws {@link WebhookVerificationError} (as a rejection) with a `code` saying why.
 *
 * @example
 * ```ts
 * import { verifySignature } from '@followup/webhooks/web';
 *
 * export default {
 *   async fetch(request: Request, env: { FOLLOWUP_WEBHOOK_SECRET: string }) {
 *     const body = await request.arrayBuffer();
 *     await verifySignature(body, request.headers, { secret: env.FOLLOWUP_WEBHOOK_SECRET });
 *     const event = JSON.parse(new TextDecoder().decode(body));
 *     return new Response(null, { status: 204 });
 *   },
 * };
 * ```
 */
export async function verifySignature(
  payload: WebhookPayload,
  header: string | HeadersLike,
  options: VerifyOptions,
): Promise<VerifiedSignature> {
  const job = planSignatureVerification(payload, header, options);
  return { timestamp: job.timestamp as number, secretIndex: await matchSecret(job) };
}

/**
 * Like {@link verifySignature}, but resolves to `{ ok: false, error }` instead of rejecting when
 * the request does not verify. Invalid options (a `RangeError`) still reject.
 *
 * @example
 * ```ts
 * const result = await safeVerifySignature(body, request.headers, { secret });
 * if (!result.ok) return new Response(result.error.code, { status: 400 });
 * ```
 */
export async function safeVerifySignature(
  payload: WebhookPayload,
  header: string | HeadersLike,
  options: VerifyOptions,
): Promise<SafeVerifyResult> {
  try {
    return { ok: true, ...(await verifySignature(payload, header, options)) };
  } catch (error) {
    if (WebhookVerificationError.isInstance(error)) return { ok: false, error };
    throw error;
  }
}

/**
 * Verifies an inbound EHR vendor webhook with Web Crypto, against the vendor's profile:
 * HMAC-SHA256 keyed by the vendor's shared secret over the raw body (and the timestamp, for
 * timestamped schemes), compared in constant time.
 *
 * @throws {@link WebhookVerificationError} (as a rejection) when the request does not verify; a
 *   `TypeError` for a profile with no inbound scheme.
 *
 * @example
 * ```ts
 * import { vendorProfiles, verifyVendorSignature } from '@followup/webhooks/web';
 *
 * await verifyVendorSignature(vendorProfiles.metriport, await request.arrayBuffer(), request.headers, {
 *   secret: env.EHR_WEBHOOK_SECRET_METRIPORT,
 * });
 * ```
 */
export async function verifyVendorSignature(
  profile: SignedVendorProfile,
  payload: WebhookPayload,
  headers: HeadersLike,
  options: VendorVerifyOptions,
): Promise<VerifiedVendorSignature> {
  const job = planVendorVerification(profile, payload, headers, options);
  return { timestamp: job.timestamp, secretIndex: await matchSecret(job) };
}

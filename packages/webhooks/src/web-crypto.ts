import { WebhookVerificationError } from './errors.js';
import { bytesToHex } from './internal/hex.js';
import type { WebhookPayload } from './payload.js';
import { rawPayload } from './payload.js';
import { type HeadersLike, readHeaderQuietly } from './read-header.js';
import type { WebhookSecret } from './secrets.js';
import { secretsEqual } from './secrets-equal.js';
import {
  CANONICAL_PREFIX_MAX_LENGTH,
  canonicalPrefixLength,
  formatSignatureHeader,
  readCanonicalSignatureHeader,
  signedPrefix,
} from './signature-header.js';
import {
  noMatchingSignature,
  planSignatureVerification,
  planSigning,
  planVendorVerification,
  type SafeVerifyResult,
  SIGNATURE_HEADER,
  type SignOptions,
  type VendorVerifyOptions,
  type VerificationJob,
  type VerifiedSignature,
  type VerifiedVendorSignature,
  type VerifyOptions,
} from './signature-scheme.js';
import {
  digestsEqual,
  noStandardMatch,
  planStandardWebhook,
  type StandardWebhookVerifyOptions,
  type VerifiedStandardWebhook,
} from './standard-webhooks.js';
import { plainNow, plainTolerance, withinPlainTolerance } from './time.js';
import type { SignedVendorProfile } from './vendor-profiles.js';

import {
  claimedScratch,
  encoder,
  hmac,
  scratchOf,
  signedBytes,
  stringKeyCache,
} from './web-hmac.js';

async function matchSecret(job: VerificationJob): Promise<number> {
  for (let index = 0; index < job.secrets.length; index++) {
    // Rebuilt for each secret: the scratch buffer may have been reused during the await.
    const data = signedBytes(job.prefix, job.body);
    const expected = await hmac(job.secrets[index] as WebhookSecret, data);
    for (const candidate of job.candidates) {
      if (secretsEqual(expected, candidate)) return index;
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
  const digests: string[] = [];
  for (const secret of secrets) {
    digests.push(bytesToHex(await hmac(secret, signedBytes(signedPrefix(timestamp), body))));
  }
  return formatSignatureHeader(timestamp, digests);
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
export function verifySignature(
  payload: WebhookPayload,
  header: string | HeadersLike,
  options: VerifyOptions,
): Promise<VerifiedSignature> {
  let verified: Promise<VerifiedSignature> | undefined;
  try {
    verified = verifyCanonicalSignature(payload, header, options);
  } catch {
    // Only user code can throw here (an option's getter, say); the general path calls it again
    // and rejects as it always did.
  }
  return verified ?? verifySignatureGeneralPath(payload, header, options);
}

/** @internal The general path of {@link verifySignature}: every input, every error. */
export async function verifySignatureGeneralPath(
  payload: WebhookPayload,
  header: string | HeadersLike,
  options: VerifyOptions,
): Promise<VerifiedSignature> {
  const job = planSignatureVerification(payload, header, options);
  return { timestamp: job.timestamp as number, secretIndex: await matchSecret(job) };
}

/**
 * @internal The fast path of {@link verifySignature}, for the common case only: one string
 * secret whose key is already imported, a string, byte or `ArrayBuffer` payload, a header in
 * the exact form FollowUp sends (`t=<digits>,v1=<64 lowercase hex>`) and plain timestamp
 * options. It signs once and resolves with no async function in between. Returns `undefined`
 * on any deviation, and hands a signature that does not match to the general path, so that
 * every error comes from the general path, which starts over.
 */
export function verifyCanonicalSignature(
  payload: WebhookPayload,
  header: string | HeadersLike,
  options: VerifyOptions,
): Promise<VerifiedSignature> | undefined {
  if (typeof options !== 'object' || options === null) return undefined;
  const secret = options.secret;
  if (typeof secret !== 'string') return undefined;
  const key = stringKeyCache.get(secret);
  if (key === undefined || key instanceof Promise) return undefined;
  let body: string | Uint8Array;
  if (payload instanceof Uint8Array) body = payload;
  else if (payload instanceof ArrayBuffer) body = new Uint8Array(payload);
  else if (typeof payload === 'string' && payload.isWellFormed()) body = payload;
  else return undefined;
  const tolerance = plainTolerance(options);
  if (Number.isNaN(tolerance)) return undefined;
  const now = tolerance === -1 ? 0 : plainNow(options);
  if (Number.isNaN(now)) return undefined;
  const value = readHeaderQuietly(header, SIGNATURE_HEADER);
  if (typeof value !== 'string') return undefined;
  // From here on no user code runs until verify() has copied the scratch buffers (it copies its
  // signature and data synchronously, as sign() does; test/web-crypto-copy.test.ts checks it).
  const bodyLength = typeof body === 'string' ? body.length * 3 : body.byteLength;
  const bytes = scratchOf(CANONICAL_PREFIX_MAX_LENGTH + bodyLength);
  // The prefix `<digits>.` is written at the start of the scratch buffer, the body after it.
  const timestamp = readCanonicalSignatureHeader(value, claimedScratch, bytes);
  if (timestamp === -1) return undefined;
  if (!withinPlainTolerance(timestamp, tolerance, now)) return undefined;
  const prefixLength = canonicalPrefixLength(value);
  let length = prefixLength;
  if (typeof body === 'string') {
    length += encoder.encodeInto(body, bytes.subarray(prefixLength)).written;
  } else {
    bytes.set(body, prefixLength);
    length += body.byteLength;
  }
  const generally = () => verifySignatureGeneralPath(payload, header, options);
  // Web Crypto's HMAC verify compares in constant time: CRYPTO_memcmp in Node (OpenSSL),
  // Chromium and Workers (BoringSSL), ring in Deno, constantTimeMemcmp in Bun (WebKit). It saves
  // signing into a new ArrayBuffer and comparing in JavaScript, a tenth of a small verification.
  return crypto.subtle
    .verify(
      'HMAC',
      key,
      claimedScratch as Uint8Array<ArrayBuffer>,
      bytes.subarray(0, length) as Uint8Array<ArrayBuffer>,
    )
    .then((valid) => (valid ? { timestamp, secretIndex: 0 } : generally()), generally);
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
    const { timestamp, secretIndex } = await verifySignature(payload, header, options);
    return { ok: true, timestamp, secretIndex };
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

/**
 * Verifies a webhook signed the Standard Webhooks way (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature: v1,<base64>`), on Web Crypto: the same checks as the `node:crypto` entry's
 * `verifyStandardWebhook`, keyed with the bytes the base64 after `whsec_` decodes to.
 *
 * @example
 * ```ts
 * const { id } = await verifyStandardWebhook(await request.text(), request.headers, { secret });
 * ```
 */
export async function verifyStandardWebhook(
  payload: WebhookPayload,
  headers: HeadersLike,
  options: StandardWebhookVerifyOptions,
): Promise<VerifiedStandardWebhook> {
  const body = rawPayload(payload);
  const job = planStandardWebhook(headers, options);
  for (let index = 0; index < job.keys.length; index++) {
    const expected = await hmac(job.keys[index] as Uint8Array, signedBytes(job.prefix, body));
    for (const candidate of job.candidates) {
      if (digestsEqual(expected, candidate)) {
        return { id: job.id, timestamp: job.timestamp, secretIndex: index };
      }
    }
  }
  throw noStandardMatch();
}

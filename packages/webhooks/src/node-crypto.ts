import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
import { hmac, keyCache, standardKeyOf } from './node-hmac.js';
import type { WebhookPayload } from './payload.js';
import { rawPayload } from './payload.js';
import { type HeadersLike, readHeaderQuietly } from './read-header.js';
import type { WebhookSecret } from './secrets.js';
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

/** Returns the index of the first secret whose HMAC equals one of the candidates, or throws. */
function matchSecret(job: VerificationJob): number {
  for (let index = 0; index < job.secrets.length; index++) {
    const expected = hmac(job.secrets[index] as WebhookSecret, job.prefix, job.body);
    for (const candidate of job.candidates) {
      if (timingSafeEqual(expected, candidate)) return index;
    }
  }
  throw noMatchingSignature(job);
}

/**
 * Signs a payload the way FollowUp signs its outbound webhooks, and returns the value of the
 * `X-Service-Signature` header: `t=<unix seconds>,v1=<hex>`, where `<hex>` is the lowercase
 * HMAC-SHA256, keyed by the secret, of the bytes of `` `${t}.${payload}` `` (the construction
 * Stripe uses, so Stripe's tooling accepts it). With several secrets, one `v1=` per secret.
 *
 * Useful to test a webhook handler, and used by the FollowUp server to sign deliveries.
 *
 * @param payload - The exact body that will be sent: a string or its bytes.
 * @param options - The secret (or secrets) and, optionally, the timestamp to sign.
 * @returns The header value, e.g. `t=1700000000,v1=5257a8…`.
 * @throws {@link WebhookVerificationError} `invalid_secret` or `payload_not_raw`.
 *
 * @example
 * ```ts
 * import { signPayload } from '@followup/webhooks';
 *
 * const body = JSON.stringify({ id: 'dlv_1', event: 'contact.created', createdAt, data });
 * const signature = signPayload(body, { secret: process.env.FOLLOWUP_WEBHOOK_SECRET! });
 * await fetch(url, { method: 'POST', body, headers: { 'X-Service-Signature': signature } });
 * ```
 */
export function signPayload(payload: WebhookPayload, options: SignOptions): string {
  const body = rawPayload(payload);
  const { secrets, timestamp } = planSigning(options);
  const prefix = signedPrefix(timestamp);
  return formatSignatureHeader(
    timestamp,
    secrets.map((secret) => hmac(secret, prefix, body).toString('hex')),
  );
}

/**
 * Verifies a FollowUp webhook: the `X-Service-Signature` header against the raw body, in
 * constant time, and the timestamp against a tolerance (300 s by default, in both directions).
 *
 * The header is parsed strictly yet forgivingly: spaces around `,` and `=` are fine, unknown
 * schemes are skipped, every `v1` is tried against every secret (key rotation).
 *
 * @param payload - The raw request body, exactly as received: a string, `Uint8Array` (a Node
 *   `Buffer` is one) or `ArrayBuffer`. Never a parsed object.
 * @param header - The `X-Service-Signature` header value, or all the request headers (a fetch
 *   `Headers`, Node's `IncomingHttpHeaders` or a plain record) to read it from.
 * @param options - The secret or secrets, and the timestamp options.
 * @returns The signed timestamp and the index of the secret that matched.
 * @throws {@link WebhookVerificationError} with a `code` saying why; no other error for any
 *   header or payload. A `RangeError` only for invalid options (`tolerance`, `now`).
 *
 * @example
 * ```ts
 * import { verifySignature } from '@followup/webhooks';
 *
 * // Express: app.post('/hooks', express.raw({ type: 'application/json' }), handler)
 * verifySignature(request.body, request.headers, { secret: process.env.FOLLOWUP_WEBHOOK_SECRET! });
 * const event = JSON.parse(request.body.toString('utf8'));
 * ```
 */
export function verifySignature(
  payload: WebhookPayload,
  header: string | HeadersLike,
  options: VerifyOptions,
): VerifiedSignature {
  let verified: VerifiedSignature | undefined;
  try {
    verified = verifyCanonicalSignature(payload, header, options);
  } catch {
    // Only user code can throw here (an option's getter, say); the general path calls it again
    // and throws as it always did.
  }
  return verified ?? verifySignatureGeneralPath(payload, header, options);
}

/** @internal The general path of {@link verifySignature}: every input, every error. */
export function verifySignatureGeneralPath(
  payload: WebhookPayload,
  header: string | HeadersLike,
  options: VerifyOptions,
): VerifiedSignature {
  const job = planSignatureVerification(payload, header, options);
  return { timestamp: job.timestamp as number, secretIndex: matchSecret(job) };
}

// Scratch space of the fast path: the claimed and the expected digest, and the signed prefix
// `<digits>.` with a view of it for each length, so that a verification allocates none of them.
// Safe to share because the fast path is synchronous and reads every user-supplied value
// (option getters, a Headers object) before it writes here.
const canonicalDigest = Buffer.alloc(32);
const canonicalExpected = Buffer.alloc(32);
const canonicalPrefix = new Uint8Array(CANONICAL_PREFIX_MAX_LENGTH);
const canonicalPrefixes = Array.from({ length: CANONICAL_PREFIX_MAX_LENGTH + 1 }, (_, length) =>
  canonicalPrefix.subarray(0, length),
);

/**
 * @internal The fast path of {@link verifySignature}, for the common case only: one string
 * secret already in the key cache (so already validated), a string or byte payload, a header
 * in the exact form FollowUp sends (`t=<digits>,v1=<64 lowercase hex>`), plain timestamp
 * options, and a signature that matches. Returns `undefined` on any deviation or failure,
 * without throwing, so that every error comes from the general path, which starts over.
 */
export function verifyCanonicalSignature(
  payload: WebhookPayload,
  header: string | HeadersLike,
  options: VerifyOptions,
): VerifiedSignature | undefined {
  if (typeof options !== 'object' || options === null) return undefined;
  const secret = options.secret;
  if (typeof secret !== 'string') return undefined;
  const key = keyCache.get(secret);
  if (key === undefined) return undefined;
  let body: string | Uint8Array;
  if (payload instanceof Uint8Array) body = payload;
  else if (typeof payload === 'string' && payload.isWellFormed()) body = payload;
  else return undefined;
  const tolerance = plainTolerance(options);
  if (Number.isNaN(tolerance)) return undefined;
  const now = tolerance === -1 ? 0 : plainNow(options);
  if (Number.isNaN(now)) return undefined;
  const value = readHeaderQuietly(header, SIGNATURE_HEADER);
  if (typeof value !== 'string') return undefined;
  // From here on no user code runs, so the scratch buffers cannot be reused under us.
  const timestamp = readCanonicalSignatureHeader(value, canonicalDigest, canonicalPrefix);
  if (timestamp === -1) return undefined;
  if (!withinPlainTolerance(timestamp, tolerance, now)) return undefined;
  // The digest is taken as a 'binary' (latin1) string, one character per byte, and written into
  // scratch space: a Buffer made by digest() costs more than everything else here together.
  const expected = createHmac('sha256', key)
    .update(canonicalPrefixes[canonicalPrefixLength(value)] as Uint8Array)
    .update(body)
    .digest('binary');
  canonicalExpected.write(expected, 0, 32, 'binary');
  return timingSafeEqual(canonicalExpected, canonicalDigest)
    ? { timestamp, secretIndex: 0 }
    : undefined;
}

/**
 * Like {@link verifySignature}, but returns `{ ok: false, error }` instead of throwing when the
 * request does not verify. Invalid options (a `RangeError`) still throw.
 *
 * @example
 * ```ts
 * const result = safeVerifySignature(rawBody, request.headers, { secret });
 * if (!result.ok) return new Response(result.error.code, { status: 400 });
 * ```
 */
export function safeVerifySignature(
  payload: WebhookPayload,
  header: string | HeadersLike,
  options: VerifyOptions,
): SafeVerifyResult {
  try {
    const { timestamp, secretIndex } = verifySignature(payload, header, options);
    return { ok: true, timestamp, secretIndex };
  } catch (error) {
    if (WebhookVerificationError.isInstance(error)) return { ok: false, error };
    throw error;
  }
}

/**
 * Verifies an inbound EHR vendor webhook against the vendor's profile: HMAC-SHA256 keyed by the
 * vendor's shared secret over the raw, undecoded body (and the timestamp, for timestamped
 * schemes), compared in constant time.
 *
 * @param profile - A signed profile from {@link vendorProfiles} (or one of your own).
 * @param payload - The raw request body as received.
 * @param headers - The request headers; the profile says which one to read.
 * @param options - The vendor's secret (or several), and timestamp options for timestamped schemes.
 * @throws {@link WebhookVerificationError} when the request does not verify; a `TypeError` for a
 *   profile with no inbound scheme (`epic`, `oracle-health`, `canvas`).
 *
 * @example
 * ```ts
 * import { vendorProfiles, verifyVendorSignature } from '@followup/webhooks';
 *
 * verifyVendorSignature(vendorProfiles.athenahealth, rawBody, request.headers, {
 *   secret: process.env.EHR_WEBHOOK_SECRET_ATHENAHEALTH!,
 * });
 * ```
 */
export function verifyVendorSignature(
  profile: SignedVendorProfile,
  payload: WebhookPayload,
  headers: HeadersLike,
  options: VendorVerifyOptions,
): VerifiedVendorSignature {
  const job = planVendorVerification(profile, payload, headers, options);
  return { timestamp: job.timestamp, secretIndex: matchSecret(job) };
}

/**
 * Verifies a webhook signed the Standard Webhooks way (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature: v1,<base64>`), which every FollowUp delivery also carries: HMAC-SHA256 over
 * `` `${id}.${timestamp}.${rawBody}` ``, keyed with the bytes the base64 after `whsec_` decodes to
 * (unlike {@link verifySignature}, which keys with the secret string), compared in constant time;
 * the timestamp must be within the tolerance (300 s by default). Several `v1` entries and several
 * secrets are accepted (rotation); other versions are skipped.
 *
 * @returns The message id, the timestamp and which secret matched.
 * @throws WebhookVerificationError with `missing_header`, `malformed_header`,
 *   `no_matching_signature`, `timestamp_too_old`, `timestamp_in_future`, `payload_not_raw` or
 *   `invalid_secret`.
 *
 * @example
 * ```ts
 * const { id } = verifyStandardWebhook(rawBody, request.headers, { secret: process.env.WEBHOOK_SECRET! });
 * ```
 */
export function verifyStandardWebhook(
  payload: WebhookPayload,
  headers: HeadersLike,
  options: StandardWebhookVerifyOptions,
): VerifiedStandardWebhook {
  const body = rawPayload(payload);
  const job = planStandardWebhook(headers, options);
  for (let index = 0; index < job.keys.length; index++) {
    const key = standardKeyOf(job.secrets[index] as WebhookSecret, job.keys[index] as Uint8Array);
    const expected = createHmac('sha256', key).update(job.prefix).update(body).digest();
    for (const candidate of job.candidates) {
      if (digestsEqual(expected, candidate)) {
        return { id: job.id, timestamp: job.timestamp, secretIndex: index };
      }
    }
  }
  throw noStandardMatch();
}

/**
 * Sign and verify FollowUp webhooks, EHR vendor signatures and shared secrets, synchronously, on
 * `node:crypto` (Node.js, Bun, Deno). For Web Crypto (Cloudflare Workers, browsers, edge
 * runtimes) import `@followup/webhooks/web`, which has the same names, asynchronous.
 *
 * @packageDocumentation
 */

export {
  WebhookVerificationError,
  type WebhookVerificationErrorCode,
  type WebhookVerificationErrorOptions,
} from './errors.js';
export {
  safeVerifySignature,
  signPayload,
  verifySignature,
  verifyStandardWebhook,
  verifyVendorSignature,
} from './node-crypto.js';
export { signStandardWebhook } from './node-standard-webhook-signing.js';
export { signVendorPayload } from './node-vendor-signing.js';
export type { WebhookPayload } from './payload.js';
export type { HeaderGetter, HeadersLike } from './read-header.js';
export type { WebhookSecret } from './secrets.js';
export { secretsEqual } from './secrets-equal.js';
export {
  MAX_SIGNATURE_HEADER_ENTRIES,
  MAX_SIGNATURE_HEADER_LENGTH,
} from './signature-header.js';
export {
  type SafeVerifyFailure,
  type SafeVerifyResult,
  type SafeVerifySuccess,
  SIGNATURE_HEADER,
  type SignOptions,
  type VendorVerifyOptions,
  type VerifiedSignature,
  type VerifiedVendorSignature,
  type VerifyOptions,
} from './signature-scheme.js';
export {
  STANDARD_WEBHOOK_HEADERS,
  type StandardWebhookSignOptions,
  type StandardWebhookVerifyOptions,
  type VerifiedStandardWebhook,
} from './standard-webhooks.js';
export { DEFAULT_TOLERANCE_SECONDS, type Instant, type TimestampOptions } from './time.js';
export {
  type BodyDigestVendorProfile,
  type BuiltInVendorProfiles,
  type SignedVendorProfile,
  type TimestampedVendorProfile,
  type UnsignedVendorProfile,
  type VendorKey,
  type VendorProfile,
  vendorProfiles,
} from './vendor-profiles.js';
export type { VendorSignOptions } from './vendor-signing.js';

// Deliberately not exported: the reader and writer of the signature header and the verification
// planner (the @internal helpers of signature-header.ts and signature-scheme.ts, and
// src/internal). Their behaviour is reachable, and tested, through verifySignature; their shape
// may change in any release.

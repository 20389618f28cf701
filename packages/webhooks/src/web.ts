/**
 * The Web Crypto entry of `@followup/webhooks`, for Cloudflare Workers, Vercel Edge, Deno, Bun and
 * browsers: the same names as the main entry, and the signing and verifying functions return
 * promises. It never imports `node:crypto`. `secretsEqual` stays synchronous.
 *
 * @packageDocumentation
 */

export {
  WebhookVerificationError,
  type WebhookVerificationErrorCode,
  type WebhookVerificationErrorOptions,
} from './errors.js';
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
export {
  safeVerifySignature,
  signPayload,
  verifySignature,
  verifyStandardWebhook,
  verifyVendorSignature,
} from './web-crypto.js';
export { signStandardWebhook } from './web-standard-webhook-signing.js';
export { signVendorPayload } from './web-vendor-signing.js';

// Deliberately not exported: the reader and writer of the signature header and the verification
// planner (the @internal helpers of signature-header.ts and signature-scheme.ts, and
// src/internal). Their behaviour is reachable, and tested, through verifySignature; their shape
// may change in any release.

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
export {
  MAX_SIGNATURE_HEADER_ENTRIES,
  MAX_SIGNATURE_HEADER_LENGTH,
} from './internal/parse-signature-header.js';
export type { WebhookPayload } from './internal/payload.js';
export type { HeaderGetter, HeadersLike } from './internal/read-header.js';
export type { WebhookSecret } from './internal/secrets.js';
export {
  STANDARD_WEBHOOK_HEADERS,
  type StandardWebhookVerifyOptions,
  type VerifiedStandardWebhook,
} from './internal/standard-webhooks.js';
export { DEFAULT_TOLERANCE_SECONDS, type Instant, type TimestampOptions } from './internal/time.js';
export { secretsEqual } from './secrets-equal.js';
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
  type BodyDigestVendorProfile,
  type BuiltInVendorProfiles,
  type SignedVendorProfile,
  type TimestampedVendorProfile,
  type UnsignedVendorProfile,
  type VendorKey,
  type VendorProfile,
  vendorProfiles,
} from './vendor-profiles.js';
export {
  safeVerifySignature,
  signPayload,
  verifySignature,
  verifyStandardWebhook,
  verifyVendorSignature,
} from './web-crypto.js';

// Deliberately not exported: the header parser and the verification planner (src/internal and
// the @internal helpers of signature-scheme.ts). Their behaviour is reachable, and tested,
// through verifySignature; their shape may change in any release.

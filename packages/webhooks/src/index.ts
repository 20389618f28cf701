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
export {
  safeVerifySignature,
  signPayload,
  verifySignature,
  verifyStandardWebhook,
  verifyVendorSignature,
} from './node-crypto.js';
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

// Deliberately not exported: the header parser and the verification planner (src/internal and
// the @internal helpers of signature-scheme.ts). Their behaviour is reachable, and tested,
// through verifySignature; their shape may change in any release.

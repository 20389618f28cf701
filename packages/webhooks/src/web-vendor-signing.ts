import { bytesToHex } from './internal/hex.js';
import { rawPayload, type WebhookPayload } from './payload.js';
import type { SignedVendorProfile } from './vendor-profiles.js';
import { planVendorSigning, type VendorSignOptions } from './vendor-signing.js';
import { hmac, signedBytes } from './web-hmac.js';

/**
 * Signs a payload as an EHR vendor does, with Web Crypto, and resolves to the value of the
 * vendor's signature header (`profile.header`): the same result as the synchronous
 * `signVendorPayload` of `@followup/webhooks` (the profile's prefix and the hexadecimal
 * HMAC-SHA256 of the body, or `t=<unix seconds>,v1=<hex>` over `` `${t}.${payload}` `` for a
 * timestamped scheme).
 *
 * @param profile - A signed profile from {@link vendorProfiles} (or one of your own).
 * @param payload - The exact body that will be sent: a string or its bytes.
 * @param options - The vendor's secret and, for a timestamped scheme, the time to sign.
 * @throws {@link WebhookVerificationError} `invalid_secret` or `payload_not_raw` (as a
 *   rejection); a `TypeError` for a profile with no inbound scheme.
 *
 * @example
 * ```ts
 * import { signVendorPayload, vendorProfiles } from '@followup/webhooks/web';
 *
 * const signature = await signVendorPayload(vendorProfiles.metriport, body, { secret });
 * ```
 */
export async function signVendorPayload(
  profile: SignedVendorProfile,
  payload: WebhookPayload,
  options: VendorSignOptions,
): Promise<string> {
  const body = rawPayload(payload);
  const job = planVendorSigning(profile, options);
  return job.header(bytesToHex(await hmac(job.secret, signedBytes(job.prefix, body))));
}

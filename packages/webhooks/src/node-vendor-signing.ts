import { hmac } from './node-hmac.js';
import { rawPayload, type WebhookPayload } from './payload.js';
import type { SignedVendorProfile } from './vendor-profiles.js';
import { planVendorSigning, type VendorSignOptions } from './vendor-signing.js';

/**
 * Signs a payload as an EHR vendor does, so that {@link verifyVendorSignature} (and the FollowUp
 * server's `POST /api/ehr/webhooks/{ehr}`) accepts it, and returns the value of the vendor's
 * signature header (`profile.header`): for a scheme over the body alone (`athenahealth`,
 * `metriport`), the profile's prefix and the lowercase hexadecimal HMAC-SHA256 of the raw bytes,
 * keyed by the vendor's secret (`sha256=5257a8…`); for a timestamped scheme (`akute`),
 * `t=<unix seconds>,v1=<hex>` over `` `${t}.${payload}` ``.
 *
 * Useful to send an EHR vendor's webhook to a server in a test or a demo, without the vendor.
 *
 * @param profile - A signed profile from {@link vendorProfiles} (or one of your own).
 * @param payload - The exact body that will be sent: a string or its bytes.
 * @param options - The vendor's secret and, for a timestamped scheme, the time to sign.
 * @returns The value of the header named `profile.header`.
 * @throws {@link WebhookVerificationError} `invalid_secret` or `payload_not_raw`; a `TypeError`
 *   for a profile with no inbound scheme (`epic`, `oracle-health`, `canvas`); a `RangeError` for
 *   a bad timestamp.
 *
 * @example
 * ```ts
 * import { signVendorPayload, vendorProfiles } from '@followup/webhooks';
 *
 * const profile = vendorProfiles.athenahealth;
 * const body = JSON.stringify({ event: 'appointment.created', id: 'apt-1' });
 * await fetch(`${baseUrl}/api/ehr/webhooks/${profile.key}`, {
 *   method: 'POST',
 *   headers: { 'content-type': 'application/json', [profile.header]: signVendorPayload(profile, body, { secret }) },
 *   body,
 * });
 * ```
 */
export function signVendorPayload(
  profile: SignedVendorProfile,
  payload: WebhookPayload,
  options: VendorSignOptions,
): string {
  const body = rawPayload(payload);
  const job = planVendorSigning(profile, options);
  return job.header(hmac(job.secret, job.prefix, body).toString('hex'));
}

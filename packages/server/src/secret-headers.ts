import { SECRET_HEADERS } from '@followup/sdk';
import { type VendorProfile, vendorProfiles } from '@followup/webhooks';

/**
 * The request and response headers of the interface that carry a credential, a session or a
 * signature, lower-case: bearer tokens, cookies, the CSRF token, the inbox webhook's shared
 * secret, and the signatures of our outbound webhooks (ours and Standard Webhooks'). The SDK's
 * `SECRET_HEADERS`, the wire contract's one list.
 */
export const CONTRACT_SECRET_HEADERS: readonly string[] = SECRET_HEADERS;

/**
 * Every secret-bearing header name, lower-case: {@link CONTRACT_SECRET_HEADERS} and the signature
 * header of each EHR vendor profile in use (the built-in ones by default). It is the one list
 * that the logger redacts, that EHR receipts store as `[redacted]` (a signature was present,
 * never its value), and that tests scan for; build it from the same profiles the server uses.
 *
 * @example
 * ```ts
 * secretHeaderNames(); // ['authorization', …, 'x-hub-signature', 'x-akute-signature', …]
 * ```
 */
export function secretHeaderNames(
  profiles: Iterable<VendorProfile> = Object.values(vendorProfiles),
): readonly string[] {
  const names = new Set(CONTRACT_SECRET_HEADERS);
  for (const profile of profiles) {
    if (profile.scheme !== 'none') names.add(profile.header.toLowerCase());
  }
  return Object.freeze([...names]);
}

/** What a secret-bearing header's value is replaced by, in logs and on receipts. */
export const REDACTED = '[redacted]';

/**
 * @internal A copy of `headers` (Node's lower-case names) in which every header named in
 * `secret` has its value replaced by {@link REDACTED}.
 */
export function redactHeaders(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  secret: ReadonlySet<string>,
): Record<string, string | string[]> {
  const copy: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    copy[name] = secret.has(name.toLowerCase()) ? REDACTED : value;
  }
  return copy;
}

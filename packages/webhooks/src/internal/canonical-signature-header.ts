import { decodeHexDigestInto } from './hex.js';

/** Length of `t=` + `,v1=` + 64 hexadecimal digits: the header less its timestamp digits. */
const FIXED_LENGTH = 70;
/** Most digits in a timestamp, as in the general parser. */
const MAX_TIMESTAMP_DIGITS = 12;

/**
 * Longest `<digits>.` prefix that {@link readCanonicalSignatureHeader} writes, in bytes.
 */
export const CANONICAL_PREFIX_MAX_LENGTH = MAX_TIMESTAMP_DIGITS + 1;

/**
 * Reads a signature header only in the exact form FollowUp sends to one endpoint,
 * `t=<digits>,v1=<64 lowercase hex>`, with no leading zero in the timestamp, no space, no other
 * entry. Returns the timestamp, having written the 32 digest bytes into `digest` and the signed
 * prefix `<digits>.` (ASCII) at the start of `prefix`; the prefix is `header.length - 69` bytes
 * long. Returns -1 for anything else, and the caller then takes the general path: the general
 * parser reads this form to the same timestamp and digest (a property test holds both to it).
 *
 * Nothing is allocated, so the caller may pass scratch buffers; their content is unspecified
 * after a -1. The digits decoded here are the ones a sender claims, never a secret, so the
 * early returns are harmless.
 */
export function readCanonicalSignatureHeader(
  header: string,
  digest: Uint8Array,
  prefix: Uint8Array,
): number {
  const digits = header.length - FIXED_LENGTH;
  if (
    digits < 1 ||
    digits > MAX_TIMESTAMP_DIGITS ||
    header.charCodeAt(0) !== 0x74 || // t
    header.charCodeAt(1) !== 0x3d || // =
    // A leading zero would make `${timestamp}.` differ from the digits as written.
    (digits > 1 && header.charCodeAt(2) === 0x30)
  ) {
    return -1;
  }
  let timestamp = 0;
  for (let index = 0; index < digits; index++) {
    const code = header.charCodeAt(2 + index);
    if (code < 0x30 || code > 0x39) return -1;
    timestamp = timestamp * 10 + (code - 0x30);
    prefix[index] = code;
  }
  prefix[digits] = 0x2e; // .
  const at = 2 + digits;
  if (
    header.charCodeAt(at) !== 0x2c || // ,
    header.charCodeAt(at + 1) !== 0x76 || // v
    header.charCodeAt(at + 2) !== 0x31 || // 1
    header.charCodeAt(at + 3) !== 0x3d // =
  ) {
    return -1;
  }
  // The length checked above leaves exactly 64 characters after `v1=`.
  return decodeHexDigestInto(header, at + 4, digest, true) ? timestamp : -1;
}

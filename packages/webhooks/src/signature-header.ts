// The one reader and writer of FollowUp's signature header, `t=<unix seconds>,v1=<hex>`: the
// node:crypto and Web Crypto entries sign with formatSignatureHeader, verify through
// parseSignatureHeader, and their fast paths read the canonical form with
// readCanonicalSignatureHeader; the numbers of the format are written here once.
import { verificationError } from './errors.js';
import { decodeHexDigest, decodeHexDigestInto, HEX_DIGEST_LENGTH } from './internal/hex.js';

/** Longest `t=…,v1=…` header accepted, in characters. */
export const MAX_SIGNATURE_HEADER_LENGTH = 4096;
/** Most comma-separated entries accepted in one header. */
export const MAX_SIGNATURE_HEADER_ENTRIES = 32;

/** The name of the timestamp entry. */
const TIMESTAMP_KEY = 't';
/** The name of the signature scheme entries: HMAC-SHA256 of `<t>.<body>`, lowercase hex. */
const SCHEME = 'v1';
/** Most digits in a timestamp (enough for the year 33658). */
const MAX_TIMESTAMP_DIGITS = 12;
const TIMESTAMP_DIGITS = new RegExp(`^[0-9]{1,${MAX_TIMESTAMP_DIGITS}}$`);
/** `t=` and `,v1=` and a digest: the canonical header less its timestamp digits (70). */
const CANONICAL_FIXED_LENGTH =
  `${TIMESTAMP_KEY}=`.length + `,${SCHEME}=`.length + HEX_DIGEST_LENGTH;

/** @internal A parsed `t=<unix seconds>,v1=<hex>[,v1=<hex>…]` header. */
export interface ParsedSignatureHeader {
  /** The signed timestamp, in whole seconds since the Unix epoch. */
  readonly timestamp: number;
  /** The `v1` digests, decoded (32 bytes each), in header order. */
  readonly signatures: readonly Uint8Array[];
}

/**
 * @internal Writes the header: `t=<timestamp>` then one `,v1=<hex>` per digest, in order. The
 * bytes signed for each digest are `` `${timestamp}.` `` and the body ({@link signedPrefix}).
 */
export function formatSignatureHeader(timestamp: number, hexDigests: readonly string[]): string {
  let header = `${TIMESTAMP_KEY}=${timestamp}`;
  for (const digest of hexDigests) header += `,${SCHEME}=${digest}`;
  return header;
}

/** @internal What is signed before the body: `` `${timestamp}.` ``. */
export function signedPrefix(timestamp: number): string {
  return `${timestamp}.`;
}

/** @internal Longest `<digits>.` prefix that {@link readCanonicalSignatureHeader} writes, in bytes. */
export const CANONICAL_PREFIX_MAX_LENGTH = MAX_TIMESTAMP_DIGITS + 1;

/**
 * @internal The length in bytes of the prefix `<digits>.` that
 * {@link readCanonicalSignatureHeader} wrote for this header (one it accepted).
 */
export function canonicalPrefixLength(header: string): number {
  return header.length - CANONICAL_FIXED_LENGTH + 1;
}

/**
 * @internal Reads a signature header only in the exact form FollowUp sends to one endpoint,
 * `t=<digits>,v1=<64 lowercase hex>`, with no leading zero in the timestamp, no space, no other
 * entry. Returns the timestamp, having written the 32 digest bytes into `digest` and the signed
 * prefix `<digits>.` (ASCII) at the start of `prefix`, {@link canonicalPrefixLength} bytes
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
  const digits = header.length - CANONICAL_FIXED_LENGTH;
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
  // The length checked above leaves exactly HEX_DIGEST_LENGTH characters after `v1=`.
  return decodeHexDigestInto(header, at + 4, digest, true) ? timestamp : -1;
}

// Scratch space of the general parser's fast path (the digest is copied out before returning).
const scratchDigest = new Uint8Array(32);
const scratchPrefix = new Uint8Array(CANONICAL_PREFIX_MAX_LENGTH);

function malformed(message: string) {
  return verificationError('malformed_header', message);
}

function isOptionalWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

/** Trims spaces and tabs (HTTP's optional whitespace) and nothing else. */
function trimOws(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isOptionalWhitespace(value.charCodeAt(start))) start++;
  while (end > start && isOptionalWhitespace(value.charCodeAt(end - 1))) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

/**
 * @internal Parses a `t=…,v1=…` signature header; the canonical form goes through
 * {@link readCanonicalSignatureHeader} first, unless `canonicalFastPath` is `false`.
 *
 * Spaces and tabs around `,` and `=` are allowed; entries of unknown schemes (`v0=…`, `v2=…`) are
 * skipped; every `v1` is kept. Anything else that is off is `malformed_header`, never a
 * `TypeError`: a missing or repeated `t`, a `t` that is not 1 to 12 decimal digits, a `v1` that is
 * not 64 hexadecimal characters, an empty entry or one without `=`, more than
 * {@link MAX_SIGNATURE_HEADER_ENTRIES} entries or more than {@link MAX_SIGNATURE_HEADER_LENGTH}
 * characters. A header with no `v1` at all is `no_matching_signature`.
 */
export function parseSignatureHeader(
  header: unknown,
  headerName: string,
  options: { canonicalFastPath?: boolean } = {},
): ParsedSignatureHeader {
  if (header === undefined || header === null) {
    throw verificationError('missing_header', `The ${headerName} header is missing.`);
  }
  if (typeof header !== 'string') {
    throw malformed(`The ${headerName} header must be a string, not ${typeof header}.`);
  }
  if (trimOws(header) === '') {
    throw verificationError('missing_header', `The ${headerName} header is empty.`);
  }
  if (options.canonicalFastPath !== false) {
    const timestamp = readCanonicalSignatureHeader(header, scratchDigest, scratchPrefix);
    if (timestamp !== -1) return { timestamp, signatures: [scratchDigest.slice()] };
  }
  if (header.length > MAX_SIGNATURE_HEADER_LENGTH) {
    throw malformed(
      `The ${headerName} header is longer than ${MAX_SIGNATURE_HEADER_LENGTH} characters.`,
    );
  }
  const entries = header.split(',');
  if (entries.length > MAX_SIGNATURE_HEADER_ENTRIES) {
    throw malformed(
      `The ${headerName} header has more than ${MAX_SIGNATURE_HEADER_ENTRIES} entries.`,
    );
  }
  let timestamp: number | undefined;
  const signatures: Uint8Array[] = [];
  for (const entry of entries) {
    const equals = entry.indexOf('=');
    if (equals === -1) {
      throw malformed(`The ${headerName} header has an entry without "=" (expected t=…,v1=…).`);
    }
    const key = trimOws(entry.slice(0, equals));
    const value = trimOws(entry.slice(equals + 1));
    if (key === TIMESTAMP_KEY) {
      if (timestamp !== undefined) throw malformed(`The ${headerName} header has "t" twice.`);
      if (!TIMESTAMP_DIGITS.test(value)) {
        throw malformed(
          `The ${headerName} header's "t" must be a whole number of seconds in plain decimal digits.`,
        );
      }
      timestamp = Number(value);
    } else if (key === SCHEME) {
      const signature = decodeHexDigest(value);
      if (signature === undefined) {
        throw malformed(
          `The ${headerName} header has a "v1" that is not ${HEX_DIGEST_LENGTH} hexadecimal characters.`,
        );
      }
      signatures.push(signature);
    } else if (key === '') {
      throw malformed(`The ${headerName} header has an entry with an empty name.`);
    }
    // Other schemes are skipped, so that a sender can add a scheme without breaking receivers.
  }
  if (timestamp === undefined) {
    throw malformed(`The ${headerName} header has no "t" timestamp.`);
  }
  if (signatures.length === 0) {
    throw verificationError(
      'no_matching_signature',
      `The ${headerName} header has no "v1" signature.`,
    );
  }
  return { timestamp, signatures };
}

/**
 * @internal Parses a bare hexadecimal HMAC-SHA256 digest header, after an optional prefix such as
 * `sha256=`. Surrounding spaces and tabs are allowed.
 */
export function parseHexDigestHeader(
  header: unknown,
  headerName: string,
  prefix: string,
): Uint8Array {
  if (header === undefined || header === null) {
    throw verificationError('missing_header', `The ${headerName} header is missing.`);
  }
  if (typeof header !== 'string') {
    throw malformed(`The ${headerName} header must be a string, not ${typeof header}.`);
  }
  const value = trimOws(header);
  if (value === '') {
    throw verificationError('missing_header', `The ${headerName} header is empty.`);
  }
  if (!value.startsWith(prefix)) {
    throw malformed(`The ${headerName} header must start with "${prefix}".`);
  }
  const digest = decodeHexDigest(value, prefix.length);
  if (digest === undefined) {
    throw malformed(
      `The ${headerName} header must hold ${HEX_DIGEST_LENGTH} hexadecimal characters${prefix ? ` after "${prefix}"` : ''}.`,
    );
  }
  return digest;
}

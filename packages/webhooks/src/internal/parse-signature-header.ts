import { verificationError } from '../errors.js';
import { decodeHexDigest } from './hex.js';

/** Longest `t=…,v1=…` header accepted, in characters. */
export const MAX_SIGNATURE_HEADER_LENGTH = 4096;
/** Most comma-separated entries accepted in one header. */
export const MAX_SIGNATURE_HEADER_ENTRIES = 32;

/** A parsed `t=<unix seconds>,v1=<hex>[,v1=<hex>…]` header. */
export interface ParsedSignatureHeader {
  /** The signed timestamp, in whole seconds since the Unix epoch. */
  readonly timestamp: number;
  /** The `v1` digests, decoded (32 bytes each), in header order. */
  readonly signatures: readonly Uint8Array[];
}

const DIGITS = /^[0-9]{1,12}$/;

/**
 * The header exactly as FollowUp sends it to one endpoint, `t=<digits>,v1=<64 hex>`, read in one
 * pass; `undefined` for anything else, which then takes the general path. Both paths give the
 * same result for this form (the tests run the general one on it too).
 */
function parseCanonical(header: string): ParsedSignatureHeader | undefined {
  const length = header.length;
  // "t=" + 1..12 digits + ",v1=" + 64 hex digits.
  if (
    length < 71 ||
    length > 82 ||
    header.charCodeAt(0) !== 0x74 ||
    header.charCodeAt(1) !== 0x3d
  ) {
    return undefined;
  }
  let index = 2;
  let timestamp = 0;
  for (; index < length; index++) {
    const code = header.charCodeAt(index);
    if (code < 0x30 || code > 0x39) break;
    timestamp = timestamp * 10 + (code - 0x30);
  }
  if (index === 2 || index > 14 || length - index !== 68 || !header.startsWith(',v1=', index)) {
    return undefined;
  }
  const signature = decodeHexDigest(header, index + 4);
  return signature === undefined ? undefined : { timestamp, signatures: [signature] };
}

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
 * Parses a `t=…,v1=…` signature header.
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
    const canonical = parseCanonical(header);
    if (canonical !== undefined) return canonical;
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
    if (key === 't') {
      if (timestamp !== undefined) throw malformed(`The ${headerName} header has "t" twice.`);
      if (!DIGITS.test(value)) {
        throw malformed(
          `The ${headerName} header's "t" must be a whole number of seconds in plain decimal digits.`,
        );
      }
      timestamp = Number(value);
    } else if (key === 'v1') {
      const signature = decodeHexDigest(value);
      if (signature === undefined) {
        throw malformed(
          `The ${headerName} header has a "v1" that is not 64 hexadecimal characters.`,
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
 * Parses a bare hexadecimal HMAC-SHA256 digest header, after an optional prefix such as
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
      `The ${headerName} header must hold 64 hexadecimal characters${prefix ? ` after "${prefix}"` : ''}.`,
    );
  }
  return digest;
}

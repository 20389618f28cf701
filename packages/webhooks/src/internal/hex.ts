const HEX_PAIRS = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** Lowercase hexadecimal of some bytes. */
export function bytesToHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += HEX_PAIRS[byte];
  return hex;
}

// Value of each ASCII hexadecimal digit (either case, or lowercase only); 0xff for every other
// ASCII character.
const HEX_VALUES = new Uint8Array(128).fill(0xff);
const LOWERCASE_HEX_VALUES = new Uint8Array(128).fill(0xff);
for (let digit = 0; digit < 16; digit++) {
  HEX_VALUES['0123456789abcdef'.charCodeAt(digit)] = digit;
  HEX_VALUES['0123456789ABCDEF'.charCodeAt(digit)] = digit;
  LOWERCASE_HEX_VALUES['0123456789abcdef'.charCodeAt(digit)] = digit;
}

/** Length in characters of a hexadecimal SHA-256 digest. */
export const HEX_DIGEST_LENGTH = 64;

/**
 * Decodes a SHA-256 digest written as exactly 64 hexadecimal digits, from `start` to the end of
 * `value`, into the first 32 bytes of `into`, in one pass. Returns false when it is anything
 * else (upper-case digits too, with `lowercaseOnly`); `into` then holds unspecified bytes. The
 * digits decoded here are the ones a sender claims, never a secret, so the early return is
 * harmless.
 */
export function decodeHexDigestInto(
  value: string,
  start: number,
  into: Uint8Array,
  lowercaseOnly = false,
): boolean {
  if (value.length - start !== HEX_DIGEST_LENGTH) return false;
  const table = lowercaseOnly ? LOWERCASE_HEX_VALUES : HEX_VALUES;
  // No branch in the loop: every character and digit value is folded into two accumulators
  // and judged once at the end (a character above 0x7f, or a value 0xff for a non-digit).
  let characters = 0;
  let values = 0;
  for (let index = 0, at = start; index < HEX_DIGEST_LENGTH / 2; index++, at += 2) {
    const highCode = value.charCodeAt(at);
    const lowCode = value.charCodeAt(at + 1);
    const high = table[highCode & 0x7f] as number;
    const low = table[lowCode & 0x7f] as number;
    characters |= highCode | lowCode;
    values |= high | low;
    into[index] = (high << 4) | low;
  }
  return characters <= 0x7f && values <= 0x0f;
}

/**
 * Decodes a SHA-256 digest written as exactly 64 hexadecimal digits (either case), from `start`
 * to the end of `value`. Returns `undefined` when it is anything else.
 */
export function decodeHexDigest(value: string, start = 0): Uint8Array | undefined {
  const bytes = new Uint8Array(HEX_DIGEST_LENGTH / 2);
  return decodeHexDigestInto(value, start, bytes) ? bytes : undefined;
}

const HEX_PAIRS = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** Lowercase hexadecimal of some bytes. */
export function bytesToHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += HEX_PAIRS[byte];
  return hex;
}

/** Bytes of a hexadecimal string already checked to hold an even number of hex digits. */
export function hexToBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length >>> 1);
  for (let index = 0; index < bytes.length; index++) {
    bytes[index] = Number.parseInt(hex.slice(index * 2, index * 2 + 2), 16);
  }
  return bytes;
}

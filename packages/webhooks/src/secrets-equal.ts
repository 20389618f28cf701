const encoder = new TextEncoder();

function bytesOf(value: string | Uint8Array): Uint8Array {
  return typeof value === 'string' ? encoder.encode(value) : value;
}

/**
 * Compares two secrets in constant time: the time taken depends only on the lengths, never on
 * where the values first differ, and values of different lengths are simply unequal (no early
 * return). Strings are compared as their UTF-8 bytes.
 *
 * Anything that is not a string or a `Uint8Array` (say `undefined` from a missing header) is
 * unequal to everything, so a missing value can never pass. It never throws.
 *
 * Use it for shared secrets sent as they are, such as the inbox's `X-Service-Webhook-Secret`.
 *
 * @example
 * ```ts
 * if (!secretsEqual(request.headers['x-service-webhook-secret'], process.env.INBOX_WEBHOOK_SECRET)) {
 *   return reply.code(401).send();
 * }
 * ```
 */
export function secretsEqual(a: unknown, b: unknown): boolean {
  const aValid = typeof a === 'string' || a instanceof Uint8Array;
  const bValid = typeof b === 'string' || b instanceof Uint8Array;
  if (!aValid || !bValid) return false;
  const left = bytesOf(a);
  const right = bytesOf(b);
  const length = Math.max(left.length, right.length);
  let difference = left.length ^ right.length;
  for (let index = 0; index < length; index++) {
    const x = index < left.length ? (left[index] as number) : 0;
    const y = index < right.length ? (right[index] as number) : 0;
    difference |= x ^ y;
  }
  return difference === 0;
}

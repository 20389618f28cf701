// The form of the signing secrets the server makes (`packages/server/src/delivery/signing-secrets.ts`):
// `whsec_` and the standard base64 of 32 random bytes, so that one secret keys both schemes
// (`t=,v1=` with the string, Standard Webhooks with the decoded bytes).
const SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]{43}=$/;

/**
 * Whether `text` is a signing secret of the form the server makes: `whsec_` and the standard
 * base64 of 32 bytes.
 *
 * @example
 * ```ts
 * if (!isSigningSecret(process.env.WEBHOOK_SECRET ?? '')) throw new Error('WEBHOOK_SECRET is not a whsec_ secret');
 * ```
 */
export function isSigningSecret(text: string): boolean {
  return typeof text === 'string' && SECRET_PATTERN.test(text);
}

/**
 * A new random signing secret of the form the server makes (`whsec_` and the base64 of 32
 * bytes), which both signature schemes accept: for a receiver under test, or a local listener.
 *
 * @param random - Fills its argument with random bytes; Web Crypto's `getRandomValues` by default.
 * @example
 * ```ts
 * const secret = newSigningSecret();
 * const handler = client.webhooks.handler({ secret, on: {} });
 * ```
 */
export function newSigningSecret(
  random: (bytes: Uint8Array) => Uint8Array = (bytes) => crypto.getRandomValues(bytes),
): string {
  const bytes = random(new Uint8Array(32));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `whsec_${btoa(binary)}`;
}

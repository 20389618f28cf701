import { rawPayload, type WebhookPayload } from './payload.js';
import { planStandardSigning, type StandardWebhookSignOptions } from './standard-webhooks.js';
import { hmac, signedBytes } from './web-hmac.js';

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * Signs a payload the Standard Webhooks way, as every FollowUp delivery is also signed, and
 * resolves to the value of the `webhook-signature` header: `v1,<base64>`, the HMAC-SHA256 of
 * `` `${id}.${timestamp}.${payload}` `` keyed with the bytes the base64 after `whsec_` decodes to,
 * one entry per secret separated by spaces. Send it with `webhook-id` (the `id`) and
 * `webhook-timestamp` (the same timestamp, in Unix seconds).
 *
 * @param payload - The exact body that will be sent: a string or its bytes.
 * @param options - The message id, the secret (or secrets) and, optionally, the timestamp.
 * @throws {@link WebhookVerificationError} `invalid_secret` or `payload_not_raw`; a `RangeError`
 *   for an id that is not 1 to 256 visible ASCII characters, or a bad timestamp.
 *
 * @example
 * ```ts
 * import { signStandardWebhook } from '@followup/webhooks/web';
 *
 * const signature = await signStandardWebhook(body, { id: 'dlv_1', secret, timestamp });
 * ```
 */
export async function signStandardWebhook(
  payload: WebhookPayload,
  options: StandardWebhookSignOptions,
): Promise<string> {
  const body = rawPayload(payload);
  const { prefix, keys } = planStandardSigning(options);
  const entries: string[] = [];
  for (const key of keys) {
    // Rebuilt for each key: the scratch buffer may have been reused during the await.
    entries.push(`v1,${toBase64(await hmac(key, signedBytes(prefix, body)))}`);
  }
  return entries.join(' ');
}

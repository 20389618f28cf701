import { createHmac } from 'node:crypto';
import { standardKeyOf } from './node-hmac.js';
import { rawPayload, type WebhookPayload } from './payload.js';
import type { WebhookSecret } from './secrets.js';
import { planStandardSigning, type StandardWebhookSignOptions } from './standard-webhooks.js';

/**
 * Signs a payload the Standard Webhooks way, as every FollowUp delivery is also signed, and
 * returns the value of the `webhook-signature` header: `v1,<base64>`, the HMAC-SHA256 of
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
 * import { signStandardWebhook, STANDARD_WEBHOOK_HEADERS } from '@followup/webhooks';
 *
 * const timestamp = Math.floor(Date.now() / 1000);
 * const signature = signStandardWebhook(body, { id: 'dlv_1', secret, timestamp });
 * await fetch(url, {
 *   method: 'POST',
 *   body,
 *   headers: {
 *     [STANDARD_WEBHOOK_HEADERS.id]: 'dlv_1',
 *     [STANDARD_WEBHOOK_HEADERS.timestamp]: String(timestamp),
 *     [STANDARD_WEBHOOK_HEADERS.signature]: signature,
 *   },
 * });
 * ```
 */
export function signStandardWebhook(
  payload: WebhookPayload,
  options: StandardWebhookSignOptions,
): string {
  const body = rawPayload(payload);
  const { prefix, keys, secrets } = planStandardSigning(options);
  return keys
    .map((key, index) => {
      const mac = createHmac('sha256', standardKeyOf(secrets[index] as WebhookSecret, key));
      return `v1,${mac.update(prefix).update(body).digest('base64')}`;
    })
    .join(' ');
}

import { SIGNATURE_HEADER } from '@followup/webhooks/web';

/**
 * The header of an outbound webhook that names its event kind, e.g. `contact.created`. Not
 * covered by the signature: `client.webhooks.unwrap` refuses a request where it disagrees with
 * the verified body's `event`.
 *
 * @example
 * ```ts
 * console.log(request.headers.get(EVENT_HEADER)); // 'contact.created'
 * ```
 */
export const EVENT_HEADER = 'X-Service-Event';

/**
 * The header of an outbound webhook that carries its delivery id, equal to the body's `id` and
 * the same on every retry of the delivery. Not covered by the signature either.
 *
 * @example
 * ```ts
 * const deliveryId = request.headers.get(DELIVERY_HEADER); // 'dlv_…'
 * ```
 */
export const DELIVERY_HEADER = 'X-Service-Delivery';

// The headers FollowUp itself sets on every delivery, lower-cased: an endpoint's static headers
// may not replace them (the signature, the ids, the kind, the body's type), nor any of the
// Standard Webhooks ones or those that frame the request itself.
const reservedHeaderNames = new Set([
  SIGNATURE_HEADER.toLowerCase(),
  EVENT_HEADER.toLowerCase(),
  DELIVERY_HEADER.toLowerCase(),
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'host',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
]);

/**
 * Whether an endpoint's static header may not have this name, whatever its case: the ones
 * FollowUp sets on every delivery (`X-Service-Signature`, `X-Service-Event`,
 * `X-Service-Delivery`, `Content-Type`), every `webhook-*` header of Standard Webhooks, and the
 * ones that frame the request (`Host`, `Content-Length`, `Transfer-Encoding`, `Connection`…).
 *
 * @example
 * ```ts
 * isReservedWebhookHeader('Webhook-Signature'); // true
 * isReservedWebhookHeader('X-Tenant'); // false
 * ```
 */
export function isReservedWebhookHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return reservedHeaderNames.has(lower) || lower.startsWith('webhook-');
}

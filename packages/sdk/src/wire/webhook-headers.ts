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

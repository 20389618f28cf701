/**
 * Every event kind the service emits, in its webhooks and in `GET /api/events`: the wire
 * contract, which the server imports. A kind added in a later release reaches only the endpoints
 * subscribed to all kinds; this SDK version passes it through as an `UnknownWebhookEvent`.
 *
 * @example
 * ```ts
 * WEBHOOK_EVENT_KINDS.includes('deal.updated'); // true
 * ```
 */
export const WEBHOOK_EVENT_KINDS = [
  'contact.created',
  'contact.updated',
  'contact.deleted',
  'contact.erased',
  'deal.created',
  'deal.updated',
  'deal.deleted',
  'message.received',
  'ehr.receipt.recorded',
] as const;

/**
 * An event kind this SDK version knows: one of {@link WEBHOOK_EVENT_KINDS}.
 *
 * @example
 * ```ts
 * const kinds: WebhookEventKind[] = ['contact.created', 'deal.updated'];
 * ```
 */
export type WebhookEventKind = (typeof WEBHOOK_EVENT_KINDS)[number];

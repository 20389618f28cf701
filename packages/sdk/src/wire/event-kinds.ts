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
  'endpoint.failing',
  'endpoint.disabled',
  'endpoint.enabled',
  'endpoint.recovered',
] as const;

/**
 * The operational event kinds among {@link WEBHOOK_EVENT_KINDS}: a webhook endpoint's health
 * and state changed. An endpoint takes them only when it lists them (`*` does not include them),
 * never about itself, and, when it has a `subscriber`, only about that subscriber's endpoints.
 *
 * @example
 * ```ts
 * await client.webhookEndpoints.create({ url: 'https://ops.example.com/alerts', events: [...ENDPOINT_EVENT_KINDS] });
 * ```
 */
export const ENDPOINT_EVENT_KINDS = [
  'endpoint.failing',
  'endpoint.disabled',
  'endpoint.enabled',
  'endpoint.recovered',
] as const satisfies readonly WebhookEventKind[];

/**
 * An operational event kind: one of {@link ENDPOINT_EVENT_KINDS}.
 *
 * @example
 * ```ts
 * const alertOn: EndpointEventKind[] = ['endpoint.failing', 'endpoint.disabled'];
 * ```
 */
export type EndpointEventKind = (typeof ENDPOINT_EVENT_KINDS)[number];

/**
 * An event kind this SDK version knows: one of {@link WEBHOOK_EVENT_KINDS}.
 *
 * @example
 * ```ts
 * const kinds: WebhookEventKind[] = ['contact.created', 'deal.updated'];
 * ```
 */
export type WebhookEventKind = (typeof WEBHOOK_EVENT_KINDS)[number];

// Part of the SDK's entry point (src/index.ts re-exports this module whole, which keeps each list
// of names under the 300 lines of CONTRIBUTING.md): the public names of the webhook API
// (client.webhookEndpoints, client.deliveries' list, get and retry), its resource, schemas and
// header checks, and the thin bodies of endpoints whose payload is thin, each listed by name.

export { Replays } from '../resources/replays.js';
export {
  type WebhookEndpointListParams,
  WebhookEndpoints,
} from '../resources/webhook-endpoints.js';
export { WebhookPortal } from '../resources/webhook-portal.js';
export {
  DELIVERY_STATES,
  type Delivery,
  type DeliveryDetail,
  type DeliveryList,
  deliveryDetailSchema,
  deliveryListSchema,
  deliverySchema,
  type RetryDeliveryInput,
  retryDeliveryInputSchema,
} from '../schemas/delivery.js';
export {
  isThinWebhookEvent,
  type ThinWebhookEvent,
  thinWebhookEventSchema,
} from '../schemas/thin-webhook-event.js';
export {
  type CreatedWebhookEndpoint,
  createdWebhookEndpointSchema,
  type QueuedTestDelivery,
  queuedTestDeliverySchema,
  type RotatedWebhookSecret,
  rotatedWebhookSecretSchema,
  type WebhookEndpoint,
  type WebhookEndpointList,
  webhookEndpointListSchema,
  webhookEndpointSchema,
} from '../schemas/webhook-endpoint.js';
export {
  type CreateWebhookEndpointInput,
  createWebhookEndpointInputSchema,
  type RotateWebhookSecretInput,
  rotateWebhookSecretInputSchema,
  subscriberKeySchema,
  type UpdateWebhookEndpointInput,
  updateWebhookEndpointInputSchema,
  webhookHeaderNameRefusal,
  webhookHeadersInputSchema,
  webhookHeaderValueRefusal,
} from '../schemas/webhook-endpoint-input.js';
export {
  type PortalLink,
  type PortalLinkInput,
  portalLinkInputSchema,
  portalLinkSchema,
} from '../schemas/webhook-portal.js';
export {
  type QueuedReplay,
  queuedReplaySchema,
  type Replay,
  type ReplayInput,
  replayInputSchema,
  replaySchema,
} from '../schemas/webhook-replay.js';
export { PORTAL_LINK_LIMITS, REPLAY_LIMITS, REPLAY_STATES } from '../wire/limits.js';
export { isReservedWebhookHeader } from '../wire/webhook-headers.js';

/**
 * The typed client of the FollowUp contact follow-up service: zod-validated resources, lazy
 * pagination, retries that honour `Retry-After`, one signal and one timeout per call, and
 * verified webhooks. No `node:` import: it runs on Node 22+, Bun, Deno, Cloudflare Workers and
 * browsers.
 *
 * @example
 * ```ts
 * import { FollowUp } from '@followup/sdk';
 *
 * const client = new FollowUp({ token: process.env.FOLLOWUP_TOKEN!, baseUrl: 'https://followup.example.com' });
 * for await (const contact of client.contacts.list({ limit: 200 })) console.log(contact.id);
 * ```
 *
 * @packageDocumentation
 */

export {
  WebhookVerificationError,
  type WebhookVerificationErrorCode,
} from '@followup/webhooks/web';
export {
  APIError,
  type APIErrorOptions,
  AuthenticationError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  NotImplementedError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  ValidationError,
} from './api-errors.js';
export { APIPromise, type WithResponse } from './api-promise.js';
export { FollowUp } from './client.js';
export type {
  Clock,
  FetchLike,
  FollowUpOptions,
  Logger,
  RetryEvent,
  Validation,
} from './client-options.js';
export { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, type FollowUpSummary } from './client-options.js';
export { CursorPage, type CursorPageParams } from './cursor-page.js';
// The rest of the public names, listed by name in src/entry/ (one file per part; index.ts
// re-exports each whole): the webhook API, and the wire contract, every list the wire carries,
// written once (the server, its OpenAPI document, its log redaction and the tests import these).
export * from './entry/webhook-api.js';
export * from './entry/wire-contract.js';
export {
  ConfigurationError,
  FollowUpError,
  type FollowUpErrorOptions,
  type ResumeFrom,
} from './follow-up-error.js';
export { type JsonGuard, jsonGuard } from './json-guard.js';
export { KeysetPage, type KeysetPageParams } from './keyset-page.js';
export { OffsetPage, type OffsetPageParams } from './offset-page.js';
export { Page } from './page.js';
export { PagePromise } from './page-promise.js';
export {
  APIConnectionError,
  APITimeoutError,
  APIUserAbortError,
  type RequestErrorOptions,
  type ResponseIssue,
  ResponseValidationError,
} from './request-errors.js';
export type {
  QueryParameter,
  RequestEvent,
  RequestOptions,
  ResponseEvent,
} from './request-options.js';
export { Audit, type CursorListParams } from './resources/audit.js';
export { ContactSync, type ContactSyncParams } from './resources/contact-sync.js';
export {
  type ContactListParams,
  Contacts,
  type UpsertManyParams,
} from './resources/contacts.js';
export {
  CrudResource,
  type KeysetListParams,
  type ListParams,
  type ListSort,
} from './resources/crud-resource.js';
export { type DealListFilters, type DealListParams, Deals } from './resources/deals.js';
export { Deliveries, type DeliveryListParams } from './resources/deliveries.js';
export {
  DEFAULT_DELIVERY_STORE_ENTRIES,
  type DeliveryStore,
  MemoryDeliveryStore,
  type MemoryDeliveryStoreOptions,
} from './resources/delivery-store.js';
export { type EventListParams, Events } from './resources/events.js';
export { Inbox, type InboxSendOptions } from './resources/inbox.js';
export { Messages } from './resources/messages.js';
export {
  DEFAULT_WEBHOOK_DEDUPE_WINDOW_MS,
  DEFAULT_WEBHOOK_MAX_BODY_BYTES,
  type NodeRequestLike,
  type NodeResponseLike,
  type WebhookEventHandlers,
  type WebhookEventOfKind,
  type WebhookHandler,
  type WebhookHandlerOptions,
} from './resources/webhook-handler-options.js';
export { type UnwrapOptions, Webhooks } from './resources/webhooks.js';
export {
  type AuditEntry,
  type AuditEntryList,
  auditEntryListSchema,
  auditEntrySchema,
} from './schemas/audit-entry.js';
export {
  CAMPAIGN_STATUS_VALUES,
  type Campaign,
  type CampaignList,
  type CreateCampaignInput,
  campaignListSchema,
  campaignSchema,
  createCampaignInputSchema,
  type UpdateCampaignInput,
  updateCampaignInputSchema,
} from './schemas/campaign.js';
export {
  type Contact,
  type ContactList,
  type CreateContactInput,
  contactListSchema,
  contactSchema,
  createContactInputSchema,
  LIFECYCLE_VALUES,
  type Lifecycle,
  lifecycleSchema,
  type UpdateContactInput,
  updateContactInputSchema,
} from './schemas/contact.js';
export {
  type ContactErasure,
  contactErasureSchema,
  ERASED_VALUE,
} from './schemas/contact-erasure.js';
export {
  type ContactBatchResponse,
  type ContactBatchResult,
  type ContactChange,
  type ContactChangeList,
  contactBatchInputSchema,
  contactBatchResponseSchema,
  contactBatchResultSchema,
  contactChangeListSchema,
  contactChangeSchema,
  type UpsertContactInput,
  upsertContactInputSchema,
} from './schemas/contact-sync.js';
export { type Count, countSchema } from './schemas/count.js';
export {
  type CreateDealInput,
  createDealInputSchema,
  DEAL_STAGE_VALUES,
  type Deal,
  type DealList,
  type DealStage,
  dealListSchema,
  dealSchema,
  dealStageSchema,
  type UpdateDealInput,
  updateDealInputSchema,
} from './schemas/deal.js';
export {
  type DeliveryAttempt,
  type DeliveryAttemptList,
  deliveryAttemptListSchema,
  deliveryAttemptSchema,
} from './schemas/delivery-attempt.js';
export {
  endpointDisabledEventSchema,
  endpointEnabledEventSchema,
  endpointFailingEventSchema,
  endpointRecoveredEventSchema,
  type WebhookEndpointStatus,
  webhookEndpointStatusSchema,
} from './schemas/endpoint-event-schemas.js';
export {
  type EventList,
  eventFeedEventSchema,
  eventFeedPageSchema,
  eventListSchema,
} from './schemas/event-list.js';
export {
  type EventType,
  type EventTypeList,
  eventTypeListSchema,
  eventTypeSchema,
} from './schemas/event-type.js';
export {
  type InboxMessage,
  type InboxMessageList,
  type InboxSendInput,
  type InboxSendResult,
  inboxMessageListSchema,
  inboxMessageSchema,
  inboxSendInputSchema,
  inboxSendResultSchema,
} from './schemas/inbox-message.js';
export { boundedJson, boundedText, isStorableText } from './schemas/input-limits.js';
export { type Me, meSchema } from './schemas/me.js';
export { boundedOpenEnum, type OpenEnum } from './schemas/open-enum.js';
export {
  type FieldError,
  fieldErrorSchema,
  type ProblemDetails,
  type ProblemResponse,
  problemDetailsSchema,
  problemResponseSchema,
} from './schemas/problem-details.js';
export {
  type CreateSequenceInput,
  createSequenceInputSchema,
  SEQUENCE_STATUS_VALUES,
  type Sequence,
  type SequenceList,
  type SequenceStep,
  type SequenceStepInput,
  sequenceListSchema,
  sequenceSchema,
  sequenceStepInputSchema,
  sequenceStepSchema,
  type UpdateSequenceInput,
  updateSequenceInputSchema,
} from './schemas/sequence.js';
export {
  type CreateUserInput,
  createUserInputSchema,
  type UpdateUserInput,
  type User,
  type UserList,
  updateUserInputSchema,
  userListSchema,
  userSchema,
} from './schemas/user.js';
export {
  type ContactCreatedEvent,
  type ContactDeletedEvent,
  type ContactErasedEvent,
  type ContactUpdatedEvent,
  type DealCreatedEvent,
  type DealDeletedEvent,
  type DealUpdatedEvent,
  type EhrReceiptRecordedEvent,
  type EndpointDisabledEvent,
  type EndpointEnabledEvent,
  type EndpointFailingEvent,
  type EndpointRecoveredEvent,
  isKnownWebhookEvent,
  type KnownWebhookEvent,
  type MessageReceivedEvent,
  type UnknownEventKind,
  type UnknownWebhookEvent,
  type WebhookEvent,
  webhookEnvelopeSchema,
  webhookEventSchema,
} from './schemas/webhook-event.js';
export {
  contactCreatedEventSchema,
  contactDeletedEventSchema,
  contactErasedEventSchema,
  contactErasedSchema,
  contactUpdatedEventSchema,
  dealCreatedEventSchema,
  dealDeletedEventSchema,
  dealUpdatedEventSchema,
  type EhrReceipt,
  ehrReceiptRecordedEventSchema,
  ehrReceiptSchema,
  knownWebhookEventSchema,
  messageReceivedEventSchema,
  webhookEventSchemas,
} from './schemas/webhook-event-schemas.js';
export type { TracingApi } from './tracing-api.js';

// Deliberately not exported: src/internal (the request pipeline on fetch, Retry-After and
// problem+json parsing, the status-to-error factory, token parsing). Their behaviour is reachable,
// and tested, through FollowUp; their shape may change in any release.

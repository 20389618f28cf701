import { z } from 'zod';
import { timestampSchema } from '../internal/timestamp.js';
import type { WebhookEventKind } from '../wire/event-kinds.js';
import { contactSchema } from './contact.js';
import { dealSchema } from './deal.js';
import {
  endpointDisabledEventSchema,
  endpointEnabledEventSchema,
  endpointFailingEventSchema,
  endpointRecoveredEventSchema,
} from './endpoint-event-schemas.js';
import { envelope, eventSchema } from './event-envelope.js';
import { inboxMessageSchema } from './inbox-message.js';

/**
 * Schema of the `data` of an `ehr.receipt.recorded` event: the receipt's metadata, never the
 * vendor's body or headers.
 *
 * @example
 * ```ts
 * ehrReceiptSchema.parse({ id: 'rcpt_1', vendor: 'athenahealth', verdict: 'valid', receivedAt: '2026-01-01T00:00:00.000Z' });
 * ```
 */
export const ehrReceiptSchema = z.looseObject({
  /** The receipt's id (`rcpt_…`). */
  id: z.string().min(1),
  /** The vendor key of the URL (`athenahealth`, …). */
  vendor: z.string(),
  /**
   * How the request was judged: `valid`, `invalid_signature`, `vendor_not_supported`,
   * `unknown_vendor`, or a value added later.
   */
  verdict: z.string(),
  /** When the request arrived (ISO 8601 UTC). */
  receivedAt: timestampSchema,
});

/**
 * An EHR webhook receipt as its event carries it.
 *
 * @example
 * ```ts
 * if (receipt.verdict !== 'valid') alert(`bad signature from ${receipt.vendor}`);
 * ```
 */
export type EhrReceipt = z.infer<typeof ehrReceiptSchema>;

function updatedEventSchema<const Kind extends WebhookEventKind, Data extends z.ZodType>(
  kind: Kind,
  data: Data,
) {
  return z.looseObject({
    ...envelope,
    /** The event kind. */
    event: z.literal(kind),
    /** The record as it is now. */
    data,
    /**
     * The former values of exactly the fields this change altered (`null` for a field that had
     * no value), as Stripe's `previous_attributes`; `updatedAt` is not among them.
     */
    previousAttributes: z.record(z.string(), z.unknown()),
  });
}

/**
 * Schema of a `contact.created` event: `data` is the new contact.
 *
 * @example
 * ```ts
 * const event = contactCreatedEventSchema.parse(JSON.parse(rawBody));
 * ```
 */
export const contactCreatedEventSchema = eventSchema(
  'contact.created',
  // The interface names these three; the server sends the whole contact.
  contactSchema.partial().required({ id: true, firstName: true, lastName: true }),
);
/**
 * Schema of a `contact.updated` event: `data` is the contact as it is now, `previousAttributes`
 * the former values of the fields that changed.
 *
 * @example
 * ```ts
 * const event = contactUpdatedEventSchema.parse(JSON.parse(rawBody));
 * if ('lifecycle' in event.previousAttributes) onLifecycleChange(event.data);
 * ```
 */
export const contactUpdatedEventSchema = updatedEventSchema('contact.updated', contactSchema);
/**
 * Schema of a `contact.deleted` event: `data` is the contact as it was when it was deleted (its
 * deals were deleted with it, each with a `deal.deleted` event of its own).
 *
 * @example
 * ```ts
 * const event = contactDeletedEventSchema.parse(JSON.parse(rawBody));
 * ```
 */
export const contactDeletedEventSchema = eventSchema('contact.deleted', contactSchema);
/**
 * Schema of the `data` of a `contact.erased` event: the erased contact's id, nothing else.
 *
 * @example
 * ```ts
 * contactErasedSchema.parse({ id: 'con_01J…' });
 * ```
 */
export const contactErasedSchema = z.looseObject({
  /** The id (`con_…`) of the contact whose stored values were erased. */
  id: z.string().min(1),
});

/**
 * Schema of a `contact.erased` event: every stored copy of a contact's values was replaced by
 * `"[erased]"` (`POST /api/contacts/{id}/erase`). `data` carries the id only: forget the person
 * in every copy you keep, the values of earlier events included.
 *
 * @example
 * ```ts
 * const event = contactErasedEventSchema.parse(JSON.parse(rawBody));
 * await replica.forget(event.data.id);
 * ```
 */
export const contactErasedEventSchema = eventSchema('contact.erased', contactErasedSchema);
/**
 * Schema of a `deal.created` event: `data` is the new deal.
 *
 * @example
 * ```ts
 * const event = dealCreatedEventSchema.parse(JSON.parse(rawBody));
 * ```
 */
export const dealCreatedEventSchema = eventSchema('deal.created', dealSchema);
/**
 * Schema of a `deal.updated` event: `data` is the deal as it is now, `previousAttributes` the
 * former values of the fields that changed (its previous `stage` when the stage moved).
 *
 * @example
 * ```ts
 * const event = dealUpdatedEventSchema.parse(JSON.parse(rawBody));
 * if (event.previousAttributes.stage !== undefined && event.data.stage === 'WON') celebrate();
 * ```
 */
export const dealUpdatedEventSchema = updatedEventSchema('deal.updated', dealSchema);
/**
 * Schema of a `deal.deleted` event: `data` is the deal as it was when it was deleted.
 *
 * @example
 * ```ts
 * const event = dealDeletedEventSchema.parse(JSON.parse(rawBody));
 * ```
 */
export const dealDeletedEventSchema = eventSchema('deal.deleted', dealSchema);
/**
 * Schema of a `message.received` event: `data` is the inbox message.
 *
 * @example
 * ```ts
 * const event = messageReceivedEventSchema.parse(JSON.parse(rawBody));
 * ```
 */
export const messageReceivedEventSchema = eventSchema('message.received', inboxMessageSchema);
/**
 * Schema of an `ehr.receipt.recorded` event: `data` is the receipt's metadata.
 *
 * @example
 * ```ts
 * const event = ehrReceiptRecordedEventSchema.parse(JSON.parse(rawBody));
 * ```
 */
export const ehrReceiptRecordedEventSchema = eventSchema('ehr.receipt.recorded', ehrReceiptSchema);

/**
 * The schema of each known event kind, by kind: what `GET /api/event-types` and the OpenAPI
 * document's `webhooks` publish.
 *
 * @example
 * ```ts
 * const parsed = webhookEventSchemas['deal.updated'].parse(body);
 * ```
 */
export const webhookEventSchemas = {
  /** {@link contactCreatedEventSchema} */
  'contact.created': contactCreatedEventSchema,
  /** {@link contactUpdatedEventSchema} */
  'contact.updated': contactUpdatedEventSchema,
  /** {@link contactDeletedEventSchema} */
  'contact.deleted': contactDeletedEventSchema,
  /** {@link contactErasedEventSchema} */
  'contact.erased': contactErasedEventSchema,
  /** {@link dealCreatedEventSchema} */
  'deal.created': dealCreatedEventSchema,
  /** {@link dealUpdatedEventSchema} */
  'deal.updated': dealUpdatedEventSchema,
  /** {@link dealDeletedEventSchema} */
  'deal.deleted': dealDeletedEventSchema,
  /** {@link messageReceivedEventSchema} */
  'message.received': messageReceivedEventSchema,
  /** {@link ehrReceiptRecordedEventSchema} */
  'ehr.receipt.recorded': ehrReceiptRecordedEventSchema,
  /** {@link endpointFailingEventSchema} */
  'endpoint.failing': endpointFailingEventSchema,
  /** {@link endpointDisabledEventSchema} */
  'endpoint.disabled': endpointDisabledEventSchema,
  /** {@link endpointEnabledEventSchema} */
  'endpoint.enabled': endpointEnabledEventSchema,
  /** {@link endpointRecoveredEventSchema} */
  'endpoint.recovered': endpointRecoveredEventSchema,
} as const satisfies Record<WebhookEventKind, z.ZodType>;

/**
 * Schema of any known webhook event, discriminated by `event`.
 *
 * @example
 * ```ts
 * const event = knownWebhookEventSchema.parse(JSON.parse(rawBody));
 * ```
 */
export const knownWebhookEventSchema = z.discriminatedUnion('event', [
  contactCreatedEventSchema,
  contactUpdatedEventSchema,
  contactDeletedEventSchema,
  contactErasedEventSchema,
  dealCreatedEventSchema,
  dealUpdatedEventSchema,
  dealDeletedEventSchema,
  messageReceivedEventSchema,
  ehrReceiptRecordedEventSchema,
  endpointFailingEventSchema,
  endpointDisabledEventSchema,
  endpointEnabledEventSchema,
  endpointRecoveredEventSchema,
]);

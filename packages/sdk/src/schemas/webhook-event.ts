import { z } from 'zod';
import { timestampSchema } from '../internal/timestamp.js';
import { WEBHOOK_EVENT_KINDS, type WebhookEventKind } from '../wire/event-kinds.js';
import { contactSchema } from './contact.js';
import { dealSchema } from './deal.js';
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

const envelope = {
  /**
   * In a webhook, the delivery id (`dlv_…`, equal to `X-Service-Delivery` and `webhook-id`, the
   * same on every retry); in `GET /api/events`, the event id (`evt_…`).
   */
  id: z.string().min(1),
  /**
   * The event's own id (`evt_…`), the same in every endpoint's delivery of it and in
   * `GET /api/events`. Absent from the webhooks of releases before it was added.
   */
  eventId: z.string().min(1).optional(),
  /** When the change happened (ISO 8601 UTC). */
  createdAt: timestampSchema,
};

function eventSchema<const Kind extends WebhookEventKind, Data extends z.ZodType>(
  kind: Kind,
  data: Data,
) {
  return z.looseObject({
    ...envelope,
    /** The event kind. */
    event: z.literal(kind),
    /** The record the event is about (see each kind). */
    data,
  });
}

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
]);

/**
 * A `contact.created` event.
 *
 * @example
 * ```ts
 * const onCreated = (event: ContactCreatedEvent) => welcome(event.data.firstName);
 * ```
 */
export type ContactCreatedEvent = z.infer<typeof contactCreatedEventSchema>;
/**
 * A `contact.updated` event.
 *
 * @example
 * ```ts
 * const onUpdated = (event: ContactUpdatedEvent) => console.log(event.previousAttributes);
 * ```
 */
export type ContactUpdatedEvent = z.infer<typeof contactUpdatedEventSchema>;
/**
 * A `contact.deleted` event.
 *
 * @example
 * ```ts
 * const onDeleted = (event: ContactDeletedEvent) => forget(event.data.id);
 * ```
 */
export type ContactDeletedEvent = z.infer<typeof contactDeletedEventSchema>;
/**
 * A `contact.erased` event: `data.id` is the contact whose values were erased.
 *
 * @example
 * ```ts
 * const onErased = (event: ContactErasedEvent) => replica.forget(event.data.id);
 * ```
 */
export type ContactErasedEvent = z.infer<typeof contactErasedEventSchema>;
/**
 * A `deal.created` event.
 *
 * @example
 * ```ts
 * const onCreated = (event: DealCreatedEvent) => console.log(event.data.title);
 * ```
 */
export type DealCreatedEvent = z.infer<typeof dealCreatedEventSchema>;
/**
 * A `deal.updated` event.
 *
 * @example
 * ```ts
 * const onUpdated = (event: DealUpdatedEvent) => console.log(event.previousAttributes.stage, '→', event.data.stage);
 * ```
 */
export type DealUpdatedEvent = z.infer<typeof dealUpdatedEventSchema>;
/**
 * A `deal.deleted` event.
 *
 * @example
 * ```ts
 * const onDeleted = (event: DealDeletedEvent) => forget(event.data.id);
 * ```
 */
export type DealDeletedEvent = z.infer<typeof dealDeletedEventSchema>;
/**
 * A `message.received` event.
 *
 * @example
 * ```ts
 * const onMessage = (event: MessageReceivedEvent) => console.log(event.data.subject);
 * ```
 */
export type MessageReceivedEvent = z.infer<typeof messageReceivedEventSchema>;
/**
 * An `ehr.receipt.recorded` event.
 *
 * @example
 * ```ts
 * const onReceipt = (event: EhrReceiptRecordedEvent) => console.log(event.data.verdict);
 * ```
 */
export type EhrReceiptRecordedEvent = z.infer<typeof ehrReceiptRecordedEventSchema>;

/**
 * Any event of a kind this SDK version knows.
 *
 * @example
 * ```ts
 * function isAboutContacts(event: KnownWebhookEvent) {
 *   return event.event.startsWith('contact.');
 * }
 * ```
 */
export type KnownWebhookEvent = z.infer<typeof knownWebhookEventSchema>;

declare const unknownKind: unique symbol;

/**
 * The kind of an event this SDK version does not know. At run time it is the kind's string; its
 * type carries only what a string has (`toString()`, `length`) and a brand, so that comparing
 * `event.event` with a known kind narrows a {@link WebhookEvent} to that kind alone, and the
 * `default` branch of a `switch` holds the unknown ones. `String(event.event)` gives the string.
 *
 * @example
 * ```ts
 * const kind: string = String(unknownEvent.event);
 * ```
 */
export type UnknownEventKind = {
  /** A brand that exists only in the type, never at run time. */
  readonly [unknownKind]: 'UnknownEventKind';
} & Pick<string, 'toString' | 'valueOf' | 'length'>;

/**
 * An event of a kind added after this SDK version: passed through with its envelope checked and
 * its `data` as sent, never an error.
 *
 * @example
 * ```ts
 * default: console.log('not handled yet:', event.event);
 * ```
 */
export interface UnknownWebhookEvent {
  /** The delivery id (a webhook) or the event id (`GET /api/events`). */
  readonly id: string;
  /** The event's own id, when sent. */
  readonly eventId?: string;
  /** The kind, which this SDK version does not know. */
  readonly event: UnknownEventKind;
  /** When the change happened (ISO 8601 UTC). */
  readonly createdAt: string;
  /** The event's data, unchecked. */
  readonly data: Readonly<Record<string, unknown>>;
  /** The former values of changed fields, for an update. */
  readonly previousAttributes?: Readonly<Record<string, unknown>>;
}

/**
 * Any webhook event: one of the known kinds, typed by `event`, or an {@link UnknownWebhookEvent}
 * of a kind added later. Switch on `event`; the `default` branch receives unknown kinds.
 *
 * @example
 * ```ts
 * const event: WebhookEvent = await client.webhooks.unwrap(rawBody, headers, { secret });
 * switch (event.event) {
 *   case 'contact.created':
 *     await welcome(event.data);
 *     break;
 *   case 'deal.updated':
 *     if (event.previousAttributes.stage !== undefined) await notifyStage(event.data);
 *     break;
 *   default:
 *     console.log('ignored', String(event.event));
 * }
 * ```
 */
export type WebhookEvent = KnownWebhookEvent | UnknownWebhookEvent;

/**
 * Schema of the envelope every event has, whatever its kind: `{id, event, createdAt, data}`.
 *
 * @example
 * ```ts
 * const { event } = webhookEnvelopeSchema.parse(JSON.parse(rawBody));
 * ```
 */
export const webhookEnvelopeSchema = z.looseObject({
  ...envelope,
  /** The event kind. */
  event: z.string().min(1),
  /** The record the event is about. */
  data: z.record(z.string(), z.unknown()),
  /** For an update, the former values of the fields that changed. */
  previousAttributes: z.record(z.string(), z.unknown()).optional(),
});

/**
 * Schema of any webhook event: a known kind is checked against its own schema; another kind
 * passes with its envelope checked (an {@link UnknownWebhookEvent}).
 *
 * @example
 * ```ts
 * const event = webhookEventSchema.parse(JSON.parse(rawBody));
 * ```
 */
export const webhookEventSchema = z.unknown().transform((value, context): WebhookEvent => {
  const kind = (value as { event?: unknown } | null)?.event;
  const schema: z.ZodType =
    typeof kind === 'string' && Object.hasOwn(webhookEventSchemas, kind)
      ? webhookEventSchemas[kind as WebhookEventKind]
      : webhookEnvelopeSchema;
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      context.addIssue({ code: 'custom', message: issue.message, path: issue.path, input: value });
    }
    return z.NEVER;
  }
  return parsed.data as WebhookEvent;
});

/**
 * Whether an event is of a kind this SDK version knows (its type narrows to
 * {@link KnownWebhookEvent}).
 *
 * @example
 * ```ts
 * if (!isKnownWebhookEvent(event)) return;
 * ```
 */
export function isKnownWebhookEvent(event: WebhookEvent): event is KnownWebhookEvent {
  return (WEBHOOK_EVENT_KINDS as readonly unknown[]).includes(event.event);
}

import { z } from 'zod';
import { WEBHOOK_EVENT_KINDS, type WebhookEventKind } from '../wire/event-kinds.js';
import type {
  endpointDisabledEventSchema,
  endpointEnabledEventSchema,
  endpointFailingEventSchema,
  endpointRecoveredEventSchema,
} from './endpoint-event-schemas.js';
import { envelope } from './event-envelope.js';
import {
  type contactCreatedEventSchema,
  type contactDeletedEventSchema,
  type contactErasedEventSchema,
  type contactUpdatedEventSchema,
  type dealCreatedEventSchema,
  type dealDeletedEventSchema,
  type dealUpdatedEventSchema,
  type ehrReceiptRecordedEventSchema,
  type knownWebhookEventSchema,
  type messageReceivedEventSchema,
  webhookEventSchemas,
} from './webhook-event-schemas.js';

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
 * An `endpoint.failing` event: a webhook endpoint's attempts started failing.
 *
 * @example
 * ```ts
 * const onFailing = (event: EndpointFailingEvent) => warn(event.data.url, event.data.failingSince);
 * ```
 */
export type EndpointFailingEvent = z.infer<typeof endpointFailingEventSchema>;
/**
 * An `endpoint.disabled` event: a webhook endpoint was disabled, `data.reason` says why.
 *
 * @example
 * ```ts
 * const onDisabled = (event: EndpointDisabledEvent) => page(event.data.url, event.data.reason);
 * ```
 */
export type EndpointDisabledEvent = z.infer<typeof endpointDisabledEventSchema>;
/**
 * An `endpoint.enabled` event: a webhook endpoint was enabled again.
 *
 * @example
 * ```ts
 * const onEnabled = (event: EndpointEnabledEvent) => console.log(event.data.id, 'enabled');
 * ```
 */
export type EndpointEnabledEvent = z.infer<typeof endpointEnabledEventSchema>;
/**
 * An `endpoint.recovered` event: a failing webhook endpoint took a delivery again.
 *
 * @example
 * ```ts
 * const onRecovered = (event: EndpointRecoveredEvent) => resolveAlert(event.data.id);
 * ```
 */
export type EndpointRecoveredEvent = z.infer<typeof endpointRecoveredEventSchema>;

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

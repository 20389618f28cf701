import type { WebhookEvent } from '../schemas/webhook-event.js';
import type { WebhookEventKind } from '../wire/event-kinds.js';
import { INPUT_LIMITS } from '../wire/limits.js';

/** @internal What {@link sampleEvent} stamps on a sample. */
export interface SampleStamp {
  /** The event's id (`evt_…`). */
  eventId: string;
  /** The event's time, ISO 8601 UTC. */
  createdAt: string;
}

function contact(createdAt: string) {
  return {
    id: 'con_sample0000000000000000000',
    firstName: 'Ada',
    lastName: 'Lovelace',
    lifecycle: 'LEAD',
    email: 'ada@example.com',
    phone: '+44 20 7946 0000',
    createdAt,
    updatedAt: createdAt,
  };
}

function deal(createdAt: string) {
  return {
    id: 'deal_sample000000000000000000',
    contactId: 'con_sample0000000000000000000',
    title: 'Annual check-up plan',
    stage: 'OPEN',
    amountCents: 12_000,
    currency: 'USD',
    createdAt,
    updatedAt: createdAt,
  };
}

function message(createdAt: string, text = 'Could we move my appointment to Thursday?') {
  return {
    id: 'msg_sample0000000000000000000',
    from: 'ada@example.com',
    subject: 'Appointment',
    text,
    receivedAt: createdAt,
  };
}

function endpointStatus(kind: string, createdAt: string) {
  const failing = kind === 'endpoint.failing' || kind === 'endpoint.recovered';
  return {
    id: 'we_sample00000000000000000000',
    url: 'https://hooks.example.com/followup',
    subscriber: null,
    state:
      kind === 'endpoint.failing'
        ? 'failing'
        : kind === 'endpoint.disabled'
          ? 'disabled'
          : 'active',
    reason: kind === 'endpoint.disabled' ? 'manual' : null,
    failingSince: failing ? createdAt : null,
  };
}

/**
 * @internal A body of each kind the wire contract names, as the server would send it: every
 * field its SDK schema (`webhookEventSchemas`) requires, and the ones the server adds (the whole
 * contact, `previousAttributes` of an update). `sample-events.test.ts` checks each against its
 * schema.
 */
export function sampleEvent(kind: WebhookEventKind, stamp: SampleStamp): WebhookEvent {
  const { eventId: id, createdAt } = stamp;
  const envelope = { id, createdAt };
  switch (kind) {
    case 'contact.created':
    case 'contact.deleted':
      return { ...envelope, event: kind, data: contact(createdAt) } as WebhookEvent;
    case 'contact.updated':
      return {
        ...envelope,
        event: kind,
        data: { ...contact(createdAt), lifecycle: 'PATIENT' },
        previousAttributes: { lifecycle: 'LEAD' },
      } as WebhookEvent;
    case 'contact.erased':
      return { ...envelope, event: kind, data: { id: contact(createdAt).id } } as WebhookEvent;
    case 'deal.created':
    case 'deal.deleted':
      return { ...envelope, event: kind, data: deal(createdAt) } as WebhookEvent;
    case 'deal.updated':
      return {
        ...envelope,
        event: kind,
        data: { ...deal(createdAt), stage: 'WON' },
        previousAttributes: { stage: 'OPEN' },
      } as WebhookEvent;
    case 'message.received':
      return { ...envelope, event: kind, data: message(createdAt) } as WebhookEvent;
    case 'ehr.receipt.recorded':
      return {
        ...envelope,
        event: kind,
        data: {
          id: 'rcpt_sample000000000000000000',
          vendor: 'athenahealth',
          verdict: 'accepted',
          receivedAt: createdAt,
        },
      } as WebhookEvent;
    case 'endpoint.failing':
    case 'endpoint.disabled':
    case 'endpoint.enabled':
    case 'endpoint.recovered':
      return { ...envelope, event: kind, data: endpointStatus(kind, createdAt) } as WebhookEvent;
  }
}

/**
 * @internal The largest event the server sends: a `message.received` whose text is as long as
 * the inbox accepts (`INPUT_LIMITS.inboxText` characters, about 256 KiB), the largest value any
 * route stores into an event.
 */
export function largestSampleEvent(stamp: SampleStamp): WebhookEvent {
  return {
    id: stamp.eventId,
    createdAt: stamp.createdAt,
    event: 'message.received',
    data: message(stamp.createdAt, 'x'.repeat(INPUT_LIMITS.inboxText)),
  } as WebhookEvent;
}
